package proxy

import (
	"bytes"
	"compress/flate"
	"errors"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/fixtures/supplier"
)

// TestOpenPayload: gzip, zstd and deflate bodies (zlib, or a bare DEFLATE
// stream) open to their JSON, a body past the bound once decompressed is
// errDecodedTooLarge, a corrupt one errUndecodable; a changed body is
// compressed again the same way, an unchanged one goes as sent.
func TestOpenPayload(t *testing.T) {
	plain := []byte(`{"input":[` + string(bytes.Repeat([]byte(`{"role":"user","content":"x"},`), 200)) + `{}]}`)
	bodies := map[string][]byte{"": plain}
	for _, coding := range []string{"gzip", "zstd", "deflate"} {
		b, err := supplier.Encode(plain, coding)
		if err != nil {
			t.Fatal(err)
		}
		bodies[coding] = b
	}
	var raw bytes.Buffer
	fw, _ := flate.NewWriter(&raw, flate.DefaultCompression)
	fw.Write(plain)
	fw.Close()
	bodies["raw deflate"] = raw.Bytes()
	for name, sent := range bodies {
		coding := strings.TrimPrefix(name, "raw ")
		pay, err := openPayload(sent, coding, len(plain), freeHolding())
		if err != nil || !bytes.Equal(pay.plain, plain) {
			t.Fatalf("%q: %v", coding, err)
		}
		same, _ := pay.out([][]byte{plain}, false)
		if !bytes.Equal(same[0], sent) {
			t.Fatalf("%q: an unchanged body is not sent as it came", coding)
		}
		changed, err := pay.out([][]byte{[]byte(`{"input":`), []byte(`[]}`)}, true)
		if err != nil {
			t.Fatal(err)
		}
		back, err := openPayload(bytes.Join(changed, nil), coding, 100, freeHolding())
		if err != nil || string(back.plain) != `{"input":[]}` || back.rawDeflate != pay.rawDeflate {
			t.Fatalf("%q: the changed body compressed again opens to %q (%v), raw %v", name, back.plain, err, back.rawDeflate)
		}
		if coding == "" {
			continue
		}
		if _, err := openPayload(sent, coding, len(plain)-1, freeHolding()); !errors.Is(err, errDecodedTooLarge) {
			t.Fatalf("%q past the bound: %v", coding, err)
		}
		if _, err := openPayload(sent[:len(sent)/2], coding, len(plain), freeHolding()); !errors.Is(err, errUndecodable) {
			t.Fatalf("%q cut short: %v", coding, err)
		}
	}
	if pay, _ := openPayload(raw.Bytes(), "deflate", len(plain), freeHolding()); !pay.rawDeflate {
		t.Fatal("a bare DEFLATE stream was taken for zlib")
	}
	if decodable("br") || decodable("gzip, zstd") || !decodable(" ZSTD") || !decodable("identity") || !decodable("Deflate") {
		t.Fatal("decodable")
	}
}
