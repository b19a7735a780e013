package server

import (
	"context"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/internal/queue"
)

// heldDecider is a decider whose queue reports each job it runs.
func heldDecider(t *testing.T) (*decider, chan boundaryJob) {
	t.Helper()
	ran := make(chan boundaryJob, 4)
	d := &decider{}
	d.q = queue.New(context.Background(), func(_ context.Context, j boundaryJob) { ran <- j }, queue.Options[boundaryJob]{})
	t.Cleanup(func() { d.q.Close(context.Background()) })
	return d, ran
}

// Boundary work queued while a payload is answered waits for its reply;
// a payload overlapping it takes no hold of its own, so releasing the
// first lets the work run although the second is still being answered.
func TestDeciderWaitsForThePayloadReply(t *testing.T) {
	d, ran := heldDecider(t)
	release := d.holdForPayload()
	second := d.holdForPayload()
	d.q.Push(boundaryJob{sessionID: "s1"})
	select {
	case <-ran:
		t.Fatal("boundary work ran while the payload was answered")
	case <-time.After(30 * time.Millisecond):
	}
	release()
	select {
	case j := <-ran:
		if j.sessionID != "s1" {
			t.Fatalf("ran %+v", j)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("boundary work still waiting after the reply (an overlapping payload held it)")
	}
	second()
}

// A hold ends by itself after maxPayloadHold: a payload whose reply
// never comes does not stop boundary work.
func TestDeciderHoldIsBounded(t *testing.T) {
	d, ran := heldDecider(t)
	release := d.holdForPayload()
	defer release()
	start := time.Now()
	d.q.Push(boundaryJob{sessionID: "s1"})
	select {
	case <-ran:
		if waited := time.Since(start); waited < maxPayloadHold/2 {
			t.Fatalf("ran after %v, before the hold ended", waited)
		}
	case <-time.After(maxPayloadHold + 5*time.Second):
		t.Fatal("boundary work waited past maxPayloadHold")
	}
}
