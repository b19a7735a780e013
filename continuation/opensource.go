package continuation

import (
	"context"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/hostapi"
)

// Why a cited source cannot be opened (OpenedSourceView.reason).
const (
	// SourceHostCannotOpen: the host did not declare capabilities.sources.
	SourceHostCannotOpen = "hostCannotOpen"
	// SourceHostFailed: the host's source/open failed.
	SourceHostFailed = "hostFailed"
)

// OpenedSourceView is the continuity/openSource value: the source's content
// as the host served it, or why it is unavailable.
type OpenedSourceView struct {
	Available bool                    `json:"available"`
	Kind      string                  `json:"kind"`
	URL       string                  `json:"url,omitempty"`
	Path      string                  `json:"path,omitempty"`
	Version   string                  `json:"version,omitempty"`
	Content   []hostapi.SourceContent `json:"content,omitempty"`
	Reason    string                  `json:"reason,omitempty"`
	HostCode  string                  `json:"hostCode,omitempty"`
}

// OpenSource opens a resource or memory source that manifestID cites
// (tier included or omitted, index into that list) through the host, when
// the host declared it can; otherwise it answers unavailable with the
// reason. Event sources are read with session_recall, not here.
func (s *Service) OpenSource(ctx context.Context, manifestID, tier string, index int) (OpenedSourceView, error) {
	m, e, err := loadManifest(ctx, s.db, manifestID)
	if err != nil {
		return OpenedSourceView{}, err
	}
	if m == nil {
		return OpenedSourceView{}, diag.Newf(diag.NotFound, "manifest %s does not exist", manifestID).With("manifestId", manifestID)
	}
	items := m.Included
	if tier == "omitted" {
		items = m.Omitted
	}
	if index < 0 || index >= len(items) {
		return OpenedSourceView{}, diag.Newf(diag.NotFound, "manifest %s has no %s source %d", manifestID, tier, index)
	}
	it := items[index]
	if it.Kind != KindResource && it.Kind != KindMemory {
		return OpenedSourceView{}, diag.Newf(diag.ContinuityArgumentsInvalid, "%s source %d is %s: recall event sources with session_recall", tier, index, it.Kind)
	}
	v := OpenedSourceView{Kind: it.Kind, URL: it.URL, Path: it.Path, Version: it.Version}
	if s.opts.Sources == nil {
		v.Reason = SourceHostCannotOpen
		return v, nil
	}
	got, err := s.opts.Sources.OpenSource(ctx, hostapi.OpenSource{SessionID: e.PredecessorID, Kind: it.Kind, URL: it.URL, Version: it.Version, Path: it.Path})
	if err != nil {
		v.Reason, v.HostCode = SourceHostFailed, diag.CodeOf(err)
		return v, nil
	}
	v.Available, v.Content = true, got.Content
	if got.Version != "" {
		v.Version = got.Version
	}
	return v, nil
}
