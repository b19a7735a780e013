package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrintCommandsPrintOnlyTheirOwnOutput: in print mode a run whose only
// prompt is a `/continuity …` command prints that command's output and
// exits 0, even when the session's last answer was the supplier's 400 —
// pi would otherwise print that answer again after the prompts and exit 1
// — and the marker message that prevents it never reaches the model.
func TestPrintCommandsPrintOnlyTheirOwnOutput(t *testing.T) {
	for _, line := range piLines(t) {
		t.Run(line.name, func(t *testing.T) {
			r := newRig(t, line)
			if res := r.print("acct-A", "list the files"); res.err != nil {
				t.Fatalf("turn 1: %v\n%s", res.err, res.stderr)
			}
			if res := r.print("acct-B", "list the files"); res.err == nil {
				t.Fatalf("turn 2 (policy off, switched) was not rejected:\n%s", res.stderr)
			}
			for _, cmd := range []string{"/continuity", "/continuity rule provenance", "/continuity rule turn", "/continuity bogus"} {
				res := r.print("acct-B", cmd)
				if res.err != nil {
					t.Fatalf("%s exited with %v\nstdout:\n%s\nstderr:\n%s", cmd, res.err, res.stdout, res.stderr)
				}
				if strings.TrimSpace(res.stdout) != "" {
					t.Fatalf("%s printed on stdout (pi's last answer again?):\n%s", cmd, res.stdout)
				}
				if strings.Contains(res.stderr, "400") || strings.Contains(res.stderr, "does not belong") {
					t.Fatalf("%s reprinted the last turn's error:\n%s", cmd, res.stderr)
				}
				want := "Omission rule"
				if cmd == "/continuity bogus" {
					want = "Usage:"
				}
				if !strings.Contains(res.stderr, want) {
					t.Fatalf("%s: stderr lacks %q:\n%s", cmd, want, res.stderr)
				}
			}
			// The session goes on: the next turn (policy on now) is
			// accepted, and no request carries the commands' markers as
			// an empty message.
			if res := r.print("acct-B", "/continuity on confirm"); res.err != nil {
				t.Fatalf("/continuity on confirm: %v\n%s", res.err, res.stderr)
			}
			sent := len(r.sup.Requests())
			if res := r.print("acct-B", "list the files"); res.err != nil {
				t.Fatalf("turn after the commands: %v\n%s", res.err, res.stderr)
			}
			for _, req := range r.sup.Requests()[sent:] {
				if req.Status != 200 {
					t.Fatalf("after the commands a request was rejected: %d %s", req.Status, req.Problem)
				}
				if strings.Contains(string(req.Body), `"content":""`) || strings.Contains(string(req.Body), `"text":""`) {
					t.Fatalf("a command's marker message reached the model: %s", req.Body)
				}
			}
		})
	}
}

// TestPrintTwoCopiesLoaded: the extension given twice (here with -e from
// two directories, as an installed copy and a -e copy would be) says so
// once, by name, registers its tools and commands once (pi reports no
// conflicts), and pi starts and filters as with one copy.
func TestPrintTwoCopiesLoaded(t *testing.T) {
	for _, line := range piLines(t) {
		t.Run(line.name, func(t *testing.T) {
			r := newRig(t, line)
			second := copyExtension(t)
			r.activate()
			for i, acct := range []string{"acct-A", "acct-B"} {
				res := r.print(acct, "list the files", "-e", filepath.Join(second, "index.ts"))
				if res.err != nil || strings.TrimSpace(res.stdout) == "" {
					t.Fatalf("turn %d as %s with two copies: %v\nstdout:\n%s\nstderr:\n%s", i+1, acct, res.err, res.stdout, res.stderr)
				}
				if n := strings.Count(res.stderr, "A second copy of the continuity extension was loaded"); n != 1 {
					t.Fatalf("the second copy is named %d times, want once:\n%s", n, res.stderr)
				}
				if !strings.Contains(res.stderr, second) {
					t.Fatalf("the message does not say where the second copy is (%s):\n%s", second, res.stderr)
				}
				if strings.Contains(res.stderr, "conflicts") {
					t.Fatalf("pi reports conflicts:\n%s", res.stderr)
				}
			}
			reqs := r.sup.Requests()
			trs := r.traces()
			if len(reqs) != 4 || len(trs) != 4 {
				t.Fatalf("supplier saw %d requests, the extension traced %d; want 4 each (one copy filtering)", len(reqs), len(trs))
			}
			for i, req := range reqs {
				if req.Status != 200 {
					t.Fatalf("request %d rejected: %d %s", i+1, req.Status, req.Problem)
				}
			}
			res := r.print("acct-B", "/continuity", "-e", filepath.Join(second, "index.ts"))
			if res.err != nil || strings.Count(res.stderr, "Session policy") != 1 {
				t.Fatalf("/continuity with two copies: %v\n%s", res.err, res.stderr)
			}
		})
	}
}

// copyExtension copies the extension's files (as the package lists them)
// to a directory of its own, the way a second install would hold them.
func copyExtension(t *testing.T) string {
	t.Helper()
	src := packageDir(t)
	dst := filepath.Join(t.TempDir(), "pi-continuity")
	for _, rel := range []string{"index.ts", "package.json", "src", "texts"} {
		if err := copyTree(filepath.Join(src, rel), filepath.Join(dst, rel)); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func copyTree(src, dst string) error {
	return filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(to, 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o600)
	})
}
