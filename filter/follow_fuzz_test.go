package filter

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// FuzzFollow feeds a payload to a Stream from another goroutine in pieces
// whose sizes come from the fuzzer and checks that it agrees with Select
// on the same payload and decisions: the same bytes out, or exactly the
// same error.
//
//	go test -run '^$' -fuzz FuzzFollow -fuzztime 60s ./filter
func FuzzFollow(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, []byte{1, 7, 64, 3}, uint8(0))
		f.Add(b, []byte{200, 13}, uint8(1))
		f.Add(b[:len(b)/2], []byte{5}, uint8(2))
	}
	f.Add([]byte(`{"input":[],"input":[]}`), []byte{2}, uint8(0))
	f.Add([]byte(` {"input" : [ {"type":"reasoning","encrypted_content":"x"} , {"id":"fc_1"} ] } `), []byte{1}, uint8(1))
	f.Fuzz(func(t *testing.T, payload, cuts []byte, rule uint8) {
		omit := func(c Candidate) bool {
			switch rule % 3 {
			case 0:
				return true
			case 1:
				return false
			}
			return c.Fingerprint[0]&1 == 0
		}
		want, wantErr := Select(context.Background(), payload, Options{StripPairedIDs: true}, nil, omit)
		buf := make([]byte, len(payload))
		st := Follow(context.Background(), buf, Options{StripPairedIDs: true})
		done := make(chan struct{})
		go func() {
			defer close(done)
			n := 0
			for k := 0; n < len(payload); k++ {
				step := len(payload) - n
				if len(cuts) > 0 {
					step = min(step, 1+int(cuts[k%len(cuts)]))
				}
				copy(buf[n:], payload[n:n+step])
				n += step
				st.Arrived(n)
			}
		}()
		var got []byte
		_, err := st.Send(omit, func(b []byte) error {
			got = append(got, b...)
			return nil
		})
		<-done
		switch {
		case (err == nil) != (wantErr == nil):
			t.Fatalf("followed: %v; Select: %v", err, wantErr)
		case err != nil && err.Error() != wantErr.Error():
			t.Fatalf("followed: %v; Select: %v", err, wantErr)
		case err == nil && !bytes.Equal(got, want.Final(payload)):
			t.Fatalf("followed %q\nSelect   %q", got, want.Final(payload))
		}
	})
}
