package server_test

import (
	"testing"

	"github.com/tidwall/gjson"

	"github.com/continuity-dev/continuity/fixtures/dsh"
	"github.com/continuity-dev/continuity/fixtures/host"
)

// openXContinue continues a DSH session citing one resource and one memory
// source and returns the manifest, with the index of each in its tier.
func openXContinue(t *testing.T, h *host.Host, sid string) (manifestID string, where map[string][2]any) {
	t.Helper()
	s := dshHOpen(t, h, sid, false)
	s.prompt(t, 1, "Port the importers to the v3 spec.")
	s.event(t, "assistant/message", dsh.Assistant(1, 1, "github-copilot-preview", turnsXModel, "",
		[]dsh.Call{{ID: "call-cont-" + sid, Name: "continue_session", Arguments: `{}`}}, 1500))
	res, err := h.ToolCall(ctxT(t), host.ToolCallParams{SessionID: sid, Turn: 1, CallID: "call-cont-" + sid, Name: "continue_session",
		Arguments: map[string]any{"reason": "phase_change", "title": "Importer port",
			"handoff": map[string]any{"purpose": "port the importers", "currentRequest": "port the importers to the v3 spec"},
			"sources": []any{
				map[string]any{"kind": "resource", "url": "https://example.org/importers/spec", "version": "v3", "relevance": "importer spec"},
				map[string]any{"kind": "memory", "path": "notes/importers.md", "relevance": "team notes"},
			}}})
	if err != nil {
		t.Fatal(err)
	}
	var out contContinued
	contOK(t, "continue_session", res, &out)
	m := contRemote(t, h, "manifest", map[string]any{"manifestId": out.ManifestID})
	where = map[string][2]any{}
	for _, tier := range []string{"included", "omitted"} {
		for i, it := range gjson.GetBytes(m, tier).Array() {
			if k := it.Get("kind").Str; k == "resource" || k == "memory" {
				where[k] = [2]any{tier, i}
			}
		}
	}
	if len(where) != 2 {
		t.Fatalf("the manifest does not list both cited sources: %s", m)
	}
	return out.ManifestID, where
}

// Issue 28 #9: a cited resource or memory source opens through the host
// when it declared capabilities.sources (source/open); a source the host
// cannot serve is unavailable with the host's code; a host without the
// capability is never asked and the source is unavailable with the reason.
func TestDSHCitedSourcesOpenThroughTheHost(t *testing.T) {
	caps := host.AllCapabilities()
	caps.Sources = true
	h := initialized(t, host.Config{}, caps)
	h.SetSource("https://example.org/importers/spec", "v3", "Importer spec v3: every importer returns rows.")
	manifest, where := openXContinue(t, h, "sess-src")
	open := func(h *host.Host, manifest string, at [2]any) []byte {
		return contRemote(t, h, "openSource", map[string]any{"manifestId": manifest, "tier": at[0], "index": at[1]})
	}
	v := open(h, manifest, where["resource"])
	if !gjson.GetBytes(v, "available").Bool() || gjson.GetBytes(v, "content.0.text").Str != "Importer spec v3: every importer returns rows." ||
		gjson.GetBytes(v, "version").Str != "v3" {
		t.Fatalf("the resource: %s", v)
	}
	v = open(h, manifest, where["memory"])
	if gjson.GetBytes(v, "available").Bool() || gjson.GetBytes(v, "reason").Str != "hostFailed" || gjson.GetBytes(v, "hostCode").Str != "not-found" {
		t.Fatalf("a memory source the host does not have: %s", v)
	}

	plain := initialized(t, host.Config{}, host.AllCapabilities())
	manifest, where = openXContinue(t, plain, "sess-src-plain")
	for _, k := range []string{"resource", "memory"} {
		if v := open(plain, manifest, where[k]); gjson.GetBytes(v, "available").Bool() || gjson.GetBytes(v, "reason").Str != "hostCannotOpen" {
			t.Fatalf("%s on a host without sources: %s", k, v)
		}
	}
	if plain.CallCount("source/open") != 0 {
		t.Fatal("source/open was called on a host that did not declare sources")
	}
}
