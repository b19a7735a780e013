package continuation

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/continuity-dev/continuity/diag"
	uicontract "github.com/continuity-dev/continuity/ui-contract"
)

// Tool argument schemas go out as inputSchema, so they must not refer to
// other files.
func TestToolDefinitionsAreSelfContained(t *testing.T) {
	for _, d := range ToolDefinitions() {
		if _, err := uicontract.Schema(d.InputSchema); err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		b, err := os.ReadFile(filepath.Join("..", "ui-contract", "schemas", d.InputSchema+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `"$ref": "../`) || strings.Contains(string(b), `.json`) {
			t.Fatalf("%s refers to another file", d.InputSchema)
		}
		if d.InputSchema != "tool/"+d.Name+".args" || d.Description == "" {
			t.Fatalf("definition %+v", d)
		}
	}
}

func TestToolResultsMatchSchemas(t *testing.T) {
	e, r := continued(t)
	cases := []struct{ caller, name, args string }{
		{r.SuccessorID, ToolSessionLineage, `{}`},
		{r.SuccessorID, ToolProjectionManifest, `{}`},
		{r.SuccessorID, ToolProjectionManifest, `{"manifestId":"` + r.ManifestID + `"}`},
		{r.SuccessorID, ToolSessionRecall, `{"sessionId":"A","fromEventId":"1","toEventId":"7"}`},
		{"A", ToolProjectionManifest, `{}`},
		{"A", ToolSessionLineage, `{"x":1}`},
		{r.SuccessorID, ToolProjectionManifest, `{"manifestId":"projection-elsewhere"}`},
		{"A", ToolContinueSession, argsFile(t, "injected")},
	}
	for _, c := range cases {
		res := e.call(c.caller, "x", c.name, c.args)
		if err := uicontract.ValidateValue("tool/"+c.name+".structured", mustJSONValue(t, res.Structured)); err != nil {
			t.Fatalf("%s %s: %v", c.name, c.args, err)
		}
		if len(res.Content) != 1 || res.Content[0].Type != "text" || res.Content[0].Text == "" {
			t.Fatalf("%s content %+v", c.name, res.Content)
		}
	}
	if _, err := e.svc.Tool(context.Background(), ToolCall{Name: "pin_task"}); !diag.Has(err, diag.UnknownTool) {
		t.Fatalf("foreign tool: %v", err)
	}
}

func TestRemotes(t *testing.T) {
	e, r := continued(t)
	ctx := context.Background()
	cases := []struct {
		method, code string
		call         func() (any, error)
	}{
		{"lineage", "", func() (any, error) { return e.svc.Lineage(ctx, "A") }},
		{"lineage", "", func() (any, error) { return e.svc.Lineage(ctx, r.SuccessorID) }},
		{"lineage", "", func() (any, error) { return e.svc.Lineage(ctx, "never-continued") }},
		{"handoff", "", func() (any, error) { return e.svc.Handoff(ctx, r.EdgeID) }},
		{"manifest", "", func() (any, error) { return e.svc.Manifest(ctx, r.ManifestID) }},
		{"handoff", diag.NotFound, func() (any, error) { return e.svc.Handoff(ctx, "continuation-none") }},
		{"manifest", diag.NotFound, func() (any, error) { return e.svc.Manifest(ctx, "projection-none") }},
	}
	for i, c := range cases {
		v, err := c.call()
		if got := errorCode(err); got != c.code {
			t.Fatalf("case %d (%s): code %q, want %q", i, c.method, got, c.code)
		}
		if err != nil {
			if b := errorBody(err); b.Details == nil || b.Message == "" {
				t.Fatalf("envelope error %+v", b)
			}
			continue
		}
		if err := uicontract.ValidateValue("remote/continuity/"+c.method+".value", mustJSONValue(t, v)); err != nil {
			t.Fatalf("%s: %v", c.method, err)
		}
	}
	if lv, _ := e.svc.Lineage(ctx, "A"); lv.Banner != nil || len(lv.Cards) != 1 || lv.Cards[0].Carried.Decisions != 2 || lv.Cards[0].Carried.Omitted == 0 {
		t.Fatalf("predecessor lineage %+v", lv)
	}
	if lv, _ := e.svc.Lineage(ctx, r.SuccessorID); lv.Banner == nil || lv.Banner.PredecessorID != "A" || lv.Banner.EdgeID != r.EdgeID {
		t.Fatalf("successor lineage %+v", lv)
	}
	if hi, _ := e.svc.Handoff(ctx, r.EdgeID); len(selectedOmitted(hi.Omitted)) != 4 || hi.Handoff.CurrentRequest == "" || hi.InitiatingEvent.EventID != "6" {
		t.Fatalf("inspector %+v", hi)
	}
}
