package proxy

import (
	"context"
	"testing"

	"github.com/continuity-dev/continuity/filter"
	"github.com/continuity-dev/continuity/filter/payloadgen"
)

// TestShapeKeysAreScanBodys: for every valid body, the placing keys read
// from the filter's own scan equal scanBody's, so a followed request is
// placed exactly as one read whole.
func TestShapeKeysAreScanBodys(t *testing.T) {
	bodies := []string{
		`{"input":[{"role":"user","content":"q"},{"type":"function_call_output","call_id":"c","output":"o"}]}`,
		`{"prompt_cache_key":"ses_1","input":[{"role":"user","content":"a"},{"type":"message","role":"user","content":"b"}]}`,
		`{"input":[{"role":"developer","content":"title it"},{"role":"user","content":"q"}]}`,
		`{"input":[{"role":"user","content":"q"},{"type":"reasoning","encrypted_content":"x"}]}`,
		`{"input":[{"role":"system","content":"s"},{"type":"custom_tool_call_output","call_id":"c","output":"o"}],"prompt_cache_key":"k\u00e9"}`,
		`{"prompt_cache_key":7,"input":"just text"}`,
		`{"prompt_cache_key":"a","prompt_cache_key":"b","input":[]}`,
		`{"input":[{"type":"message","role":"assistant","role":"user","content":[]},{}]}`,
		`{"input":[{"type":"m\u0065ssage","role":"\u0075ser","content":"q"}]}`,
		`{"model":"m"}`,
	}
	for _, spec := range []payloadgen.Spec{payloadgen.Typical(300 << 10), payloadgen.Ordinary(200 << 10)} {
		bodies = append(bodies, string(payloadgen.Generate(spec).Body))
	}
	for _, b := range bodies {
		want, err := scanBody([]byte(b))
		if err != nil {
			t.Fatalf("%.80s: %v", b, err)
		}
		buf := []byte(b)
		st := filter.Follow(context.Background(), buf, filter.Options{})
		st.Arrived(len(buf))
		sh, err := st.Shape()
		if err != nil {
			t.Fatalf("%.80s: %v", b, err)
		}
		if got := shapeKeys(sh); got != want {
			t.Fatalf("%.80s: shape %+v, scanBody %+v", b, got, want)
		}
		st.Close()
	}
}
