package continuation

import (
	"context"
	"fmt"
	"strings"

	"github.com/continuity-dev/continuity/diag"
)

// LineageValue is a session's continuation neighbourhood: the path from the
// origin, the banner it starts with (if it is a successor) and the
// transition cards it ends with (one per successor). It is both the
// session_lineage tool's structured result and the continuity.lineage value.
type LineageValue struct {
	SessionID string           `json:"sessionId"`
	OriginID  string           `json:"originId"`
	Path      LineagePath      `json:"path"`
	Banner    *SuccessorBanner `json:"banner"`
	Cards     []TransitionCard `json:"cards"`
}

// Lineage builds sessionID's LineageValue. A session that was never
// continued is its own origin with no banner and no cards.
func (s *Service) Lineage(ctx context.Context, sessionID string) (LineageValue, error) {
	path, err := ancestry(ctx, s.db, sessionID)
	if err != nil {
		return LineageValue{}, storeErr("read lineage", err)
	}
	succ, err := successors(ctx, s.db, sessionID)
	if err != nil {
		return LineageValue{}, storeErr("read successors", err)
	}
	first := path
	if len(first) == 0 {
		first = succ
	}
	originTitle, err := s.originTitle(ctx, first)
	if err != nil {
		return LineageValue{}, err
	}
	v := LineageValue{SessionID: sessionID, OriginID: originOf(path, sessionID), Cards: []TransitionCard{}}
	v.Path.Sessions = append(v.Path.Sessions, LineageNode{SessionID: v.OriginID, Title: originTitle, Current: len(path) == 0})
	for i, e := range path {
		v.Path.Sessions = append(v.Path.Sessions, LineageNode{SessionID: e.SuccessorID, Title: e.Title, EdgeID: e.ID,
			Reason: e.Reason, At: e.CreatedAt, Current: i == len(path)-1})
	}
	if n := len(path); n > 0 {
		predTitle := originTitle
		if n > 1 {
			predTitle = path[n-2].Title
		}
		b := bannerFor(path[n-1], predTitle)
		v.Banner = &b
	}
	for _, e := range succ {
		h, m, err := s.edgeDetail(ctx, e)
		if err != nil {
			return LineageValue{}, err
		}
		card := cardFor(e, *h, *m)
		if card.Run, err = loadRun(ctx, s.db, e.ID); err != nil {
			return LineageValue{}, err
		}
		v.Cards = append(v.Cards, card)
	}
	return v, nil
}

// edgeDetail loads an edge's handoff and manifest.
func (s *Service) edgeDetail(ctx context.Context, e Edge) (*Handoff, *Manifest, error) {
	h, err := loadHandoff(ctx, s.db, e.ID)
	if err != nil {
		return nil, nil, err
	}
	m, _, err := loadManifest(ctx, s.db, e.ManifestID)
	if err != nil {
		return nil, nil, err
	}
	if m == nil {
		return nil, nil, storeErr("read manifest", fmt.Errorf("edge %s has no manifest", e.ID))
	}
	return h, m, nil
}

// Handoff returns the inspector view of one committed edge.
func (s *Service) Handoff(ctx context.Context, edgeID string) (HandoffInspector, error) {
	e, err := edgeByID(ctx, s.db, edgeID)
	if err != nil {
		return HandoffInspector{}, storeErr("read edge", err)
	}
	if e == nil {
		return HandoffInspector{}, diag.Newf(diag.NotFound, "edge %s does not exist", edgeID).With("edgeId", edgeID)
	}
	h, m, err := s.edgeDetail(ctx, *e)
	if err != nil {
		return HandoffInspector{}, err
	}
	v := inspectorFor(*e, *h, *m)
	if v.OmittedRecalls, err = omittedRecalls(ctx, s.db, e.ManifestID); err != nil {
		return HandoffInspector{}, err
	}
	return v, nil
}

// Manifest returns one committed manifest.
func (s *Service) Manifest(ctx context.Context, manifestID string) (Manifest, error) {
	m, _, err := loadManifest(ctx, s.db, manifestID)
	if err != nil {
		return Manifest{}, err
	}
	if m == nil {
		return Manifest{}, diag.Newf(diag.NotFound, "manifest %s does not exist", manifestID).With("manifestId", manifestID)
	}
	return *m, nil
}

// lineageTool runs session_lineage for the caller.
func (s *Service) lineageTool(ctx context.Context, call ToolCall) (ToolResult, error) {
	var none struct{}
	if err := decodeArgs("tool/session_lineage.args", call.Arguments, &none); err != nil {
		return ToolResult{}, err
	}
	v, err := s.Lineage(ctx, call.SessionID)
	if err != nil {
		return ToolResult{}, err
	}
	var b strings.Builder
	for i, n := range v.Path.Sessions {
		if i > 0 {
			fmt.Fprintf(&b, " → (%s, edge %s) ", n.Reason, n.EdgeID)
		}
		b.WriteString(n.SessionID)
	}
	return textResult("Lineage from origin: "+b.String(), v), nil
}

// manifestTool runs projection_manifest: the caller's seeding manifest, or
// a named one that belongs to an edge on the caller's path.
func (s *Service) manifestTool(ctx context.Context, call ToolCall) (ToolResult, error) {
	var a struct {
		ManifestID string `json:"manifestId"`
	}
	if err := decodeArgs("tool/projection_manifest.args", call.Arguments, &a); err != nil {
		return ToolResult{}, err
	}
	path, err := ancestry(ctx, s.db, call.SessionID)
	if err != nil {
		return ToolResult{}, storeErr("read lineage", err)
	}
	if len(path) == 0 {
		return ToolResult{}, diag.Newf(diag.NotFound, "session %s was not created by a continuation", call.SessionID).With("sessionId", call.SessionID)
	}
	id := path[len(path)-1].ManifestID
	if a.ManifestID != "" {
		id = ""
		for _, e := range path {
			if e.ManifestID == a.ManifestID {
				id = e.ManifestID
			}
		}
		if id == "" {
			return ToolResult{}, diag.Newf(diag.LineageForbidden, "manifest %s is not on the lineage of %s", a.ManifestID, call.SessionID).
				With("manifestId", a.ManifestID)
		}
	}
	m, err := s.Manifest(ctx, id)
	if err != nil {
		return ToolResult{}, err
	}
	text := fmt.Sprintf("Manifest %s: %d sources included, %d linked but not loaded, %d state items, %d of %d tokens.\n%s",
		m.ManifestID, len(m.Included), len(m.Omitted), len(m.State), m.Tokens.Used, m.Tokens.Budget, marshal(m))
	return textResult(text, m), nil
}

// Projection returns the successor context of a committed edge exactly as
// session/create carried it, for a host that must start (or retry) the
// successor's run again: the bytes whose digest the manifest records.
func (s *Service) Projection(ctx context.Context, edgeID string) ([]byte, error) {
	e, err := edgeByID(ctx, s.db, edgeID)
	if err != nil {
		return nil, storeErr("read edge", err)
	}
	if e == nil || !e.committed {
		return nil, diag.Newf(diag.NotFound, "edge %s does not exist", edgeID).With("edgeId", edgeID)
	}
	return e.context, nil
}

// originTitle is the origin session's own title: the predecessorTitle (its
// latest session/title) that the first edge out of it recorded, or "".
// edges start at the origin (an ancestry, or the origin's successors).
func (s *Service) originTitle(ctx context.Context, edges []Edge) (string, error) {
	if len(edges) == 0 {
		return "", nil
	}
	m, _, err := loadManifest(ctx, s.db, edges[0].ManifestID)
	if err != nil || m == nil {
		return "", err
	}
	return m.PredecessorTitle, nil
}
