package wire_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/wire"
)

// BenchmarkHostRead times one plugin → host call whose answer is a 16 MiB
// session/read result, decoded into typed events: the read loop hands the
// caller the host's bytes, decoded once, into the caller's type.
//
//	go test -run '^$' -bench HostRead -benchmem ./wire
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
	conn := hostAnswering(b, result)
	b.SetBytes(int64(len(result)))
	for b.Loop() {
		res, err := conn.Call(context.Background(), "session/read", map[string]any{})
		if err != nil {
			b.Fatal(err)
		}
		var out struct {
			Events []struct {
				Seq  int64
				Data json.RawMessage
			}
		}
		if err := json.Unmarshal(res.Bytes(), &out); err != nil || len(out.Events) == 0 {
			b.Fatalf("%d events: %v", len(out.Events), err)
		}
		res.Release()
	}
}

// hostAnswering connects a Conn to a fake host that answers every request
// with result.
func hostAnswering(b *testing.B, result string) *wire.Conn {
	inR, inW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	conn := wire.NewConn(wire.Config{In: inR, Out: outW}, wire.HandlerFunc(func(r wire.Request) { r.Params.Release() }))
	conn.Start()
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
	return conn
}
