package proxy

import (
	"encoding/json"
	"net/http"

	"go.uber.org/zap"
)

// writeError answers an error the proxy itself found, in the OpenAI error
// envelope so that every client shows its message; type is always
// "continuity_proxy_error" so it is never mistaken for the supplier's.
func writeError(w http.ResponseWriter, status int, code, message string) {
	body, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": message, "type": "continuity_proxy_error", "param": nil, "code": code}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Del("Content-Length")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func zapPath(r *http.Request) zap.Field { return zap.String("path", r.URL.Path) }
func zapCode(code string) zap.Field     { return zap.String("code", code) }
func zapErr(err error) zap.Field        { return zap.String("error", err.Error()) }
