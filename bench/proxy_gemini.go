package bench

import (
	"context"
	"fmt"

	"github.com/continuity-dev/continuity/filter/gemini"
	"github.com/continuity-dev/continuity/filter/payloadgen"
)

// geminiPath is the route the Gemini rows are sent on.
const geminiPath = "/v1beta/models/gemini-3.1-pro-preview:streamGenerateContent?alt=sse"

// geminiTTFB is ttfb for a Gemini body of size: plain and proxy
// alternately, and filter/gemini's own time on the same body (every
// signature removed, the most work it does).
func (p *proxyPair) geminiTTFB(size, runs int) (ProxyRow, error) {
	body := payloadgen.GeminiHistory(size)
	row, err := p.sampleTTFB(geminiPath, body, runs, func() error {
		doc, err := gemini.Scan(body)
		if err == nil {
			_, err = doc.Select(context.Background(), func(gemini.Candidate) bool { return false })
		}
		if err != nil {
			return fmt.Errorf("bench: gemini filter: %w", err)
		}
		return nil
	})
	row.Front, row.Size = "gemini", size
	return row, err
}
