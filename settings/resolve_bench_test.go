package settings_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/continuity-dev/continuity/settings"
)

// BenchmarkResolve times resolving a session's policy from the embedded
// FileStore, as every new turn's admission does, over a namespace of 64
// session rows and a default history written more than 2 s before (so a
// stat may stand for the read; see settings' seen).
//
//	go test -run '^$' -bench Resolve -benchmem ./settings/
func BenchmarkResolve(b *testing.B) {
	fs, err := settings.OpenFileStore(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	var rows []string
	for i := range 64 {
		rows = append(rows, fmt.Sprintf(`{"sessionId":"session-%d","version":1,"consentedAt":%d,"enabled":true}`, i, 1700000000000+i))
	}
	doc := `{"revision":7,"value":{"other":{"k":"v"},"sessionContinuation":[` + strings.Join(rows, ",") +
		`],"continuationDefaultHistory":[{"enabled":true,"changedAt":1700000000000}]}}`
	if err := os.WriteFile(fs.Path(settings.Namespace), []byte(doc), 0o600); err != nil {
		b.Fatal(err)
	}
	p := settings.NewPolicy(fs)
	if _, err := p.Resolve(context.Background(), "session-9", nil); err != nil {
		b.Fatal(err)
	}
	time.Sleep(2100 * time.Millisecond) // the file settles
	for b.Loop() {
		r, err := p.Resolve(context.Background(), "session-9", nil)
		if err != nil || !r.Enabled {
			b.Fatal(r, err)
		}
	}
}
