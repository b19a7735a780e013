package proxy

import (
	"bytes"
	"compress/gzip"
	"errors"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestOpenPayload: gzip and zstd bodies open to their JSON, a body past the
// bound once decompressed is errDecodedTooLarge, a corrupt one
// errUndecodable; a changed body is compressed again the same way, an
// unchanged one goes as sent.
func TestOpenPayload(t *testing.T) {
	plain := []byte(`{"input":[` + string(bytes.Repeat([]byte(`{"role":"user","content":"x"},`), 200)) + `{}]}`)
	var gz, zs bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write(plain)
	gw.Close()
	zw, _ := zstd.NewWriter(&zs)
	zw.Write(plain)
	zw.Close()
	for coding, sent := range map[string][]byte{"gzip": gz.Bytes(), "zstd": zs.Bytes(), "": plain} {
		pay, err := openPayload(sent, coding, len(plain))
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
		back, err := openPayload(bytes.Join(changed, nil), coding, 100)
		if err != nil || string(back.plain) != `{"input":[]}` {
			t.Fatalf("%q: the changed body compressed again opens to %q (%v)", coding, back.plain, err)
		}
		if coding == "" {
			continue
		}
		if _, err := openPayload(sent, coding, len(plain)-1); !errors.Is(err, errDecodedTooLarge) {
			t.Fatalf("%q past the bound: %v", coding, err)
		}
		if _, err := openPayload(sent[:len(sent)/2], coding, len(plain)); !errors.Is(err, errUndecodable) {
			t.Fatalf("%q cut short: %v", coding, err)
		}
	}
	if decodable("br") || decodable("gzip, zstd") || !decodable(" ZSTD") || !decodable("identity") {
		t.Fatal("decodable")
	}
}
