package settings_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
	"github.com/continuity-dev/continuity/settings"
)

// The test binary re-runs itself as a writer process when childEnv is set
// (the go-plugin pattern), so the FileStore's CAS is tested between real
// processes, not goroutines.
const (
	childEnv  = "CONTINUITY_SETTINGS_CHILD" // "counter", "looper" or "activator"
	childDir  = "CONTINUITY_SETTINGS_DIR"
	childID   = "CONTINUITY_SETTINGS_ID"
	childN    = "CONTINUITY_SETTINGS_N"
	childStop = "CONTINUITY_SETTINGS_STOP" // looper: stop inside write number N
	perWriter = 200
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		if err := runChild(mode); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runChild(mode string) error {
	fs, err := settings.OpenFileStore(os.Getenv(childDir))
	if err != nil {
		return err
	}
	id := os.Getenv(childID)
	switch mode {
	case "counter":
		n, _ := strconv.Atoi(os.Getenv(childN))
		return countWrites(fs, id, n)
	case "looper":
		return loopWrites(fs)
	case "activator":
		return settings.NewPolicy(fs).Activate(context.Background())
	}
	return fmt.Errorf("unknown child mode %q", mode)
}

// counter reads an integer member of the raw test document (0 when absent).
func counter(value json.RawMessage, key string) int64 {
	var m map[string]json.RawMessage
	json.Unmarshal(value, &m)
	n, _ := strconv.ParseInt(string(m[key]), 10, 64)
	return n
}

// increment does one read-modify-write of the shared counter and the
// writer's own key, retrying on conflict; extra sets more keys.
func increment(ctx context.Context, fs *settings.FileStore, own string, extra map[string]string) error {
	for {
		n, err := fs.Describe(ctx, "test")
		if err != nil {
			return err
		}
		ops := []hostapi.Op{
			{Op: "set", Path: []string{"shared"}, Value: []byte(strconv.FormatInt(counter(n.Value, "shared")+1, 10))},
			{Op: "set", Path: []string{own}, Value: []byte(strconv.FormatInt(counter(n.Value, own)+1, 10))},
		}
		for k, v := range extra {
			ops = append(ops, hostapi.Op{Op: "set", Path: []string{k}, Value: []byte(v)})
		}
		_, err = fs.Mutate(ctx, "test", ops, n.Revision)
		if !diag.Has(err, settings.HostConflict) {
			return err
		}
	}
}

// countWrites makes n counter increments and n policy rows of its own, each
// retried until its CAS wins.
func countWrites(fs *settings.FileStore, id string, n int) error {
	ctx := context.Background()
	p := settings.NewPolicy(fs)
	on := true
	for i := range n {
		if err := increment(ctx, fs, "p"+id, nil); err != nil {
			return err
		}
		for {
			r, err := p.Resolve(ctx, fmt.Sprintf("%s-%d", id, i), nil)
			if err != nil {
				return err
			}
			if _, _, err = p.Set(ctx, fmt.Sprintf("%s-%d", id, i), nil, r.Revision, &on); !diag.Has(err, diag.Conflict) {
				if err != nil {
					return err
				}
				break
			}
		}
	}
	return nil
}

// loopWrites increments forever with a padding member, saying "ready"
// after its first write. With childStop = N it instead says "mid-write" and
// hangs inside its N-th write, after the temp file is written and before
// the rename, so the parent's kill lands exactly there.
func loopWrites(fs *settings.FileStore) error {
	stop, _ := strconv.Atoi(os.Getenv(childStop))
	if stop > 0 {
		writes := 0
		settings.PauseBeforeRename(func() {
			if writes++; writes == stop {
				fmt.Println("mid-write")
				select {}
			}
		})
	}
	pad := strconv.Quote(strings.Repeat("p", 64<<10))
	for i := 0; ; i++ {
		if err := increment(context.Background(), fs, "looper", map[string]string{"pad": pad}); err != nil {
			return err
		}
		if i == 0 && stop == 0 {
			fmt.Println("ready")
		}
	}
}

func child(mode, dir, id string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode, childDir+"="+dir, childID+"="+id, childN+"="+strconv.Itoa(perWriter))
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = os.Stderr
	return cmd
}

func TestConcurrentProcessesLoseNoUpdate(t *testing.T) {
	dir := t.TempDir()
	var cmds []*exec.Cmd
	for _, id := range []string{"a", "b"} {
		cmd := child("counter", dir, id)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer: %v", err)
		}
	}
	fs, _ := settings.OpenFileStore(dir)
	n, err := fs.Describe(context.Background(), "test")
	if err != nil {
		t.Fatal(err)
	}
	shared, a, b := counter(n.Value, "shared"), counter(n.Value, "pa"), counter(n.Value, "pb")
	if shared != 2*perWriter || a != perWriter || b != perWriter || n.Revision != 2*perWriter {
		t.Fatalf("counters shared %d, a %d, b %d at revision %d; want shared %d and %d each",
			shared, a, b, n.Revision, 2*perWriter, perWriter)
	}
	pol, err := fs.Describe(context.Background(), settings.Namespace)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Rows []settings.Row `json:"sessionContinuation"`
	}
	json.Unmarshal(pol.Value, &doc)
	seen := map[string]bool{}
	for _, r := range doc.Rows {
		seen[r.SessionID] = r.On()
	}
	for _, id := range []string{"a", "b"} {
		for i := range perWriter {
			if !seen[fmt.Sprintf("%s-%d", id, i)] {
				t.Fatalf("row %s-%d lost (%d rows in all)", id, i, len(doc.Rows))
			}
		}
	}
	if len(doc.Rows) != 2*perWriter || pol.Revision != 2*perWriter {
		t.Fatalf("%d rows at revision %d, want %d", len(doc.Rows), pol.Revision, 2*perWriter)
	}
}

// TestKilledWriterLeavesConsistentDocument kills a looping writer with
// SIGKILL, alternately at a random moment and exactly between writing its
// temp file and renaming it, and checks each time that the document parses,
// its counter matches its revision, and the next writer gets the lock and
// clears the dead writer's temp file.
func TestKilledWriterLeavesConsistentDocument(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	fs, _ := settings.OpenFileStore(dir)
	for round := range 12 {
		midWrite := round%2 == 1
		var env []string
		want := "ready\n"
		if midWrite {
			env = append(env, childStop+"="+strconv.Itoa(1+rand.IntN(4)))
			want = "mid-write\n"
		}
		cmd := child("looper", dir, "", env...)
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != want {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("round %d: looper said %q, %v", round, line, err)
		}
		if !midWrite {
			time.Sleep(time.Duration(rand.IntN(50_000)) * time.Microsecond)
		}
		cmd.Process.Kill()
		cmd.Wait()

		left, _ := filepath.Glob(filepath.Join(dir, "*.tmp"))
		if midWrite && len(left) != 1 {
			t.Fatalf("round %d: killed mid-write but %d temp files are there", round, len(left))
		}
		n, err := fs.Describe(ctx, "test")
		if err != nil {
			t.Fatalf("round %d: document unreadable after SIGKILL: %v", round, err)
		}
		if shared := counter(n.Value, "shared"); shared != n.Revision {
			t.Fatalf("round %d: shared counter %d at revision %d", round, shared, n.Revision)
		}
		if err := increment(ctx, fs, "parent", nil); err != nil {
			t.Fatalf("round %d: write after SIGKILL: %v", round, err)
		}
		if tmp, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(tmp) != 0 {
			t.Fatalf("round %d: temp files left: %v", round, tmp)
		}
	}
	n, _ := fs.Describe(ctx, "test")
	if counter(n.Value, "parent") != 12 {
		t.Fatalf("parent counter %d after 12 rounds", counter(n.Value, "parent"))
	}
}
