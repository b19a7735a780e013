package wire_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/continuity-dev/continuity/wire"
)

type ignore struct{}

func (ignore) Handle(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) {}

// BenchmarkHostRead times one plugin → host call whose answer is a 16 MiB
// session/read result, decoded into typed events, with the result handed to
// the library as it is (park=false: jsonrpc2 first decodes it into an
// interface{}) and parked by the stream (park=true: decoded once). Compare
// the two lines of one run:
//
//	go test -run x -bench HostRead -benchmem ./wire
func BenchmarkHostRead(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"events":[`)
	for i := 0; sb.Len() < 16<<20; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"type":"tool/result","seq":%d,"time":1,"data":{"output":"%s"}}`, i+1, strings.Repeat(`line of output\n`, 200))
	}
	sb.WriteString(`],"complete":true}`)
	result := sb.String()
	for _, park := range []bool{false, true} {
		b.Run(fmt.Sprintf("park=%v", park), func(b *testing.B) {
			conn, s := hostAnswering(b, result)
			b.SetBytes(int64(len(result)))
			n := 0
			for b.Loop() {
				n++
				id := jsonrpc2.ID{Str: fmt.Sprintf("cty_%x", n), IsString: true}
				var call *wire.Call
				if park {
					call = s.Await(id.Str)
				}
				w, err := conn.DispatchCall(context.Background(), "session/read", map[string]any{}, jsonrpc2.PickID(id))
				if err != nil {
					b.Fatal(err)
				}
				var raw json.RawMessage
				if err := w.Wait(context.Background(), &raw); err != nil {
					b.Fatal(err)
				}
				got, release := []byte(raw), func() {}
				if park {
					res := call.Result(raw)
					got, release = res.Bytes(), res.Release
				}
				var out struct {
					Events []struct {
						Seq  int64
						Data json.RawMessage
					}
				}
				if err := json.Unmarshal(got, &out); err != nil || len(out.Events) == 0 {
					b.Fatalf("%d events: %v", len(out.Events), err)
				}
				release()
			}
		})
	}
}

// hostAnswering connects a Stream to a fake host that answers every
// request with result.
func hostAnswering(b *testing.B, result string) (*jsonrpc2.Conn, *wire.Stream) {
	inR, inW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	s := wire.NewStream(inR, outW, nil, 0, nil)
	conn := jsonrpc2.NewConn(context.Background(), s, ignore{})
	go func() {
		rd := bufio.NewReaderSize(outR, 1<<20)
		for {
			line, err := rd.ReadBytes('\n')
			if err != nil {
				return
			}
			var req struct{ ID json.RawMessage }
			if json.Unmarshal(line, &req) != nil {
				continue
			}
			fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", req.ID, result)
		}
	}()
	b.Cleanup(func() {
		conn.Close()
		inW.Close()
		outR.Close()
	})
	return conn, s
}
