package hostapi

import "context"

// OpenSource is the params of source/open (docs/protocol.md §16.11): a
// resource or memory source a handoff cited, as its manifest names it.
type OpenSource struct {
	SessionID string `json:"sessionId"`
	Kind      string `json:"kind"` // resource or memory
	URL       string `json:"url,omitempty"`
	Version   string `json:"version,omitempty"`
	Path      string `json:"path,omitempty"`
}

// OpenedSource is the result of source/open: the source's text content and
// the version the host served.
type OpenedSource struct {
	Content []SourceContent `json:"content"`
	Version string          `json:"version,omitempty"`
}

// SourceContent is one block of an opened source.
type SourceContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// Sources is the host service that opens cited sources; a host that
// declares capabilities.sources at initialize offers it.
type Sources interface {
	OpenSource(ctx context.Context, req OpenSource) (OpenedSource, error)
}

// OpenSource calls source/open.
func (h *Client) OpenSource(ctx context.Context, req OpenSource) (OpenedSource, error) {
	var out OpenedSource
	err := h.call(ctx, "source/open", req, &out)
	return out, err
}
