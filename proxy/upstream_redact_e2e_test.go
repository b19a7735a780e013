package proxy_test

import (
	"bufio"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/continuity-dev/continuity/internal/testbin"
)

// TestUpstreamCredentialsNotPrinted: an --upstream URL may carry a
// password (a corporate gateway's basic auth); the start line names the
// upstream without it.
func TestUpstreamCredentialsNotPrinted(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(testbin.Path(t), "proxy", "--listen", "127.0.0.1:0",
		"--upstream", "http://gateway:s3cret-pw@127.0.0.1:9", "--data-dir", t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	var printed []string
	for sc.Scan() {
		printed = append(printed, sc.Text())
		if strings.HasPrefix(sc.Text(), "status page: ") {
			break
		}
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	for sc.Scan() { // to the end of stdout, which comes when the process exits
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("proxy exited: %v", err)
	}
	all := strings.Join(printed, "\n")
	if !strings.Contains(all, "continuity proxy listening on ") || !strings.Contains(all, "gateway") {
		t.Fatalf("no start line naming the upstream:\n%s", all)
	}
	if strings.Contains(all, "s3cret-pw") {
		t.Fatalf("the upstream's password was printed:\n%s", all)
	}
}
