package gemini

import "github.com/tidwall/gjson"

// Issued calls fn with the fingerprint of each thought signature one
// response issues: a GenerateContentResponse object (one SSE event's data,
// or a generateContent answer) or an array of them (streamGenerateContent
// without alt=sse). Only candidates[].content.parts[].thoughtSignature
// strings count; anything else, or a response that is not JSON, issues
// nothing.
func Issued(response []byte, fn func(fp [32]byte)) {
	r := gjson.ParseBytes(response)
	if r.IsArray() {
		r.ForEach(func(_, one gjson.Result) bool {
			issued(one, fn)
			return true
		})
		return
	}
	issued(r, fn)
}

func issued(r gjson.Result, fn func(fp [32]byte)) {
	r.Get("candidates").ForEach(func(_, c gjson.Result) bool {
		c.Get("content.parts").ForEach(func(_, p gjson.Result) bool {
			if s := p.Get("thoughtSignature"); s.Type == gjson.String && s.Str != "" && s.Str != Sentinel {
				fn(Fingerprint([]byte(s.Str)))
			}
			return true
		})
		return true
	})
}
