package instance

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"testing"
	"testing/synctest"
	"time"
)

// TestRegister: one registration per data directory; Find sees it and its
// record while it is held, and nothing once it is closed, while the record
// stays as the last upstreams used.
func TestRegister(t *testing.T) {
	dir := t.TempDir()
	if _, running, err := Find(dir); err != nil || running {
		t.Fatalf("empty directory: running %v, %v", running, err)
	}
	reg, _, err := Register(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, running, _ := Find(dir); !running {
		t.Fatal("a registered proxy that has not published yet is not found")
	}
	want := Record{PID: 42, URL: "http://127.0.0.1:1", Upstreams: []string{"http://u"}}
	if err := reg.Publish(want); err != nil {
		t.Fatal(err)
	}
	if _, other, err := Register(dir); !errors.Is(err, ErrRegistered) || other.PID != 42 {
		t.Fatalf("a second registration: %v %+v", err, other)
	}
	if rec, running, err := Find(dir); err != nil || !running || rec.URL != want.URL {
		t.Fatalf("Find: %+v %v %v", rec, running, err)
	}
	reg.Close()
	if _, running, _ := Find(dir); running {
		t.Fatal("a closed registration is still found")
	}
	if rec, err := Last(dir); err != nil || rec.Upstreams[0] != "http://u" {
		t.Fatalf("Last: %+v %v", rec, err)
	}
}

// TestNoRuns: the idle channel closes only after every run has ended. The
// poll runs on synctest's clock: ten polls pass while a run holds its lock,
// with no real time spent and no sleep hoping the poller has looked.
func TestNoRuns(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		one, err := BeginRun(dir)
		if err != nil {
			t.Fatal(err)
		}
		two, err := BeginRun(dir)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		defer close(done)
		idle, err := NoRuns(dir, 10*time.Millisecond, done)
		if err != nil {
			t.Fatal(err)
		}
		one.End()
		time.Sleep(100 * time.Millisecond) // ten polls on the bubble's clock
		synctest.Wait()
		select {
		case <-idle:
			t.Fatal("idle while a run is in progress")
		default:
		}
		two.End()
		select {
		case <-idle:
		case <-time.After(5 * time.Second):
			t.Fatal("not idle after the last run ended")
		}
	})
}

// TestLockEndsWithProcess: a registration held by a process that is killed
// is released by the operating system, so a crashed proxy never looks alive.
func TestLockEndsWithProcess(t *testing.T) {
	if os.Getenv("INSTANCE_HOLD") != "" {
		if _, _, err := Register(os.Getenv("INSTANCE_HOLD")); err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString("held\n")
		// Hold until killed; a parent that dies first closes stdin.
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockEndsWithProcess$")
	cmd.Env = append(os.Environ(), "INSTANCE_HOLD="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := out.Read(buf); err != nil || string(buf) != "held\n" {
		t.Fatalf("child: %q %v", buf, err)
	}
	if _, running, _ := Find(dir); !running {
		t.Fatal("the child's registration is not found")
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if _, running, _ := Find(dir); running {
		t.Fatal("a killed process's registration is still found")
	}
}
