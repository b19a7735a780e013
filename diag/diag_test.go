package diag

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWrapKeepsAndUnwrapsItsCause(t *testing.T) {
	err := fmt.Errorf("opening: %w", Wrap(StorageUnavailable, "the store cannot be used", fs.ErrPermission))
	if !errors.Is(err, fs.ErrPermission) {
		t.Fatal("errors.Is does not see the cause through the diagnostic")
	}
	if CodeOf(err) != StorageUnavailable {
		t.Fatalf("CodeOf = %q", CodeOf(err))
	}
	if strings.Contains(BodyOf(err, InternalError).Message, "permission") {
		t.Fatal("the cause's text reached the body")
	}
}

func TestBodyOf(t *testing.T) {
	d := New(Conflict, "changed").With("expected", 1)
	b := BodyOf(fmt.Errorf("set: %w", d), InternalError)
	if b.Code != Conflict || b.Message != "changed" || b.Details["expected"] != 1 {
		t.Fatalf("body = %+v", b)
	}
	b.Details["code"] = "x"
	if _, leaked := d.Data["code"]; leaked {
		t.Fatal("BodyOf's details alias the diagnostic's data")
	}
	if b := BodyOf(New(Revoked, ""), InternalError); b.Message != Revoked {
		t.Fatalf("a diagnostic without a message says %q, want its code", b.Message)
	}
	plain := BodyOf(errors.New("open /home/u/secret: denied"), InternalError)
	if plain.Code != InternalError || strings.Contains(plain.Message, "secret") || plain.Details == nil {
		t.Fatalf("a plain error maps to %+v", plain)
	}
	long := BodyOf(New(InternalError, strings.Repeat("é", MaxMessage)), InternalError)
	if len(long.Message) > MaxMessage || !utf8.ValidString(long.Message) {
		t.Fatalf("long message: %d bytes, valid UTF-8 %v", len(long.Message), utf8.ValidString(long.Message))
	}
	if Known(errors.New("x")) || !Known(fmt.Errorf("w: %w", d)) {
		t.Fatal("Known disagrees with the chain")
	}
}
