package proxy

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"html/template"
	"net/http"
	"strings"

	"github.com/continuity-dev/continuity/diag"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

//go:embed page.html
var pageHTML string

var pageTemplate = template.Must(template.New("page").Parse(pageHTML))

// pageKeys are the texts the page shows, from ui-contract/texts.
var pageKeys = []string{
	"proxy.page.title", "proxy.page.intro", "proxy.page.default", "proxy.page.rule", "proxy.page.none",
	"proxy.page.noSecret", "proxy.page.refused", "proxy.col.session", "proxy.col.client", "proxy.col.account",
	"proxy.col.policy", "proxy.col.turns", "proxy.col.rejections", "proxy.turn.label", "proxy.turn.requests",
	"proxy.turn.reasoning", "proxy.turn.compaction", "proxy.action.on", "proxy.action.off", "proxy.action.default",
	"proxy.source.session", "proxy.source.default", "proxy.page.shared", "proxy.col.time", "proxy.col.turn",
	"proxy.col.requests", "proxy.col.foreign", "proxy.col.unknown", "proxy.col.status", "proxy.col.kind", "proxy.col.item",
	"proxy.turn.earlier", "proxy.turn.none",
	"policy.label", "policy.on", "policy.off",
}

// page serves the status page. It holds no state of its own: the script
// reads the secret from the URL fragment (which browsers never send) and
// calls the API with it.
func (p *Proxy) page(w http.ResponseWriter, r *http.Request) {
	locale := pageLocale(r)
	texts := make(map[string]string, len(pageKeys))
	for _, k := range pageKeys {
		s, err := uicontract.Text(locale, k, nil)
		if err != nil {
			p.answerError(w, r, fail(http.StatusInternalServerError, diag.ProxyTextMissing, "continuity proxy: "+err.Error(), err))
			return
		}
		texts[k] = s
	}
	js, err := json.Marshal(texts)
	if err != nil {
		p.answerError(w, r, internal(err))
		return
	}
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, map[string]any{"Lang": locale, "Title": texts["proxy.page.title"], "Texts": template.JS(js)}); err != nil {
		p.answerError(w, r, internal(err))
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; frame-ancestors 'none'")
	_, _ = w.Write(b.Bytes())
}

// pageLocale picks the page's language: ?lang=, else the first of the
// browser's languages that is Chinese or English, else English.
func pageLocale(r *http.Request) string {
	switch strings.ToLower(r.URL.Query().Get("lang")) {
	case "zh-cn", "zh":
		return "zh-CN"
	case "en":
		return "en"
	}
	for _, part := range strings.Split(r.Header.Get("Accept-Language"), ",") {
		tag, _, _ := strings.Cut(strings.TrimSpace(strings.ToLower(part)), ";")
		switch {
		case strings.HasPrefix(tag, "zh"):
			return "zh-CN"
		case strings.HasPrefix(tag, "en"):
			return "en"
		}
	}
	return "en"
}
