package main

import (
	"bufio"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/continuity-dev/continuity/internal/syncbuf"
	"github.com/continuity-dev/continuity/internal/testbin"
)

// TestProxyLogFormat: with --log-format text an event is one readable
// line (time, level, message, fields); with json, and by default on a
// pipe, it is a JSON object.
func TestProxyLogFormat(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		flag string
		want *regexp.Regexp
	}{
		{"text", regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d  WARN  upstream failed  \{"path": "/v1/responses", "code": "UPSTREAM_UNREACHABLE"`)},
		{"json", regexp.MustCompile(`(?m)^\{"level":"warn","time":"[^"]+","msg":"upstream failed"`)},
		{"", regexp.MustCompile(`(?m)^\{"level":"warn","time":"[^"]+","msg":"upstream failed"`)},
	} {
		args := []string{"proxy", "--listen", "127.0.0.1:0", "--upstream", "http://127.0.0.1:9", "--data-dir", t.TempDir()}
		if c.flag != "" {
			args = append(args, "--log-format", c.flag)
		}
		cmd := exec.Command(testbin.Path(t), args...)
		var stderr syncbuf.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		base := ""
		for base == "" && sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "continuity proxy listening on "); ok {
				base, _, _ = strings.Cut(rest, " ")
			}
		}
		if base == "" {
			t.Fatalf("--log-format %q: no address\n%s", c.flag, stderr.String())
		}
		resp, err := http.Post(base+"/v1/responses", "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		if !c.want.MatchString(stderr.String()) {
			t.Errorf("--log-format %q logged:\n%s", c.flag, stderr.String())
		}
	}
}
