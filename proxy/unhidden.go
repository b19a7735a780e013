package proxy

import (
	"context"
	"net/http"
)

// httputil.ReverseProxy puts every outgoing request body behind a wrapper
// of its own, which has only Read: the transport then copies a pipelined
// body 32 KiB at a time from the request buffer into its copy buffer, and
// from there into its write buffer. unhiding gives the transport the
// streamBody itself, so that an HTTP/1.1 transport takes its WriteTo and
// writes each hand-over's slices as they are, straight from the request
// buffer: one chunk per slice, and one copy fewer of every byte (measured
// on the 16-sessions-at-once bench with 1 MiB bodies: about 0.09 ms of
// CPU less per request). The bytes sent are the same.

// streamBodyKey is the context key of a pipelined request's streamBody.
type streamBodyKey struct{}

// withStreamBody attaches sb to the request the ReverseProxy will send, for
// unhiding to find.
func withStreamBody(r *http.Request, sb *streamBody) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), streamBodyKey{}, sb))
}

// unhiding is the ReverseProxies' transport: next, given a pipelined
// request's streamBody in place of the ReverseProxy's wrapper of it.
type unhiding struct{ next http.RoundTripper }

func (u unhiding) RoundTrip(req *http.Request) (*http.Response, error) {
	sb, _ := req.Context().Value(streamBodyKey{}).(*streamBody)
	if sb == nil || req.Body == nil {
		return u.next.RoundTrip(req)
	}
	out := *req // a RoundTripper must not change the request it is given
	out.Body = transportBody{sb}
	return u.next.RoundTrip(&out)
}

// transportBody is a streamBody as the transport holds it. Its Close, the
// transport's, does nothing, as the ReverseProxy's wrapper's did not reach
// the streamBody either: the filter is stopped by the pipeline alone, once
// the upstream request is over (streamBody.Close), and from then on the
// body refuses to be read, as the wrapper did once its handler returned.
type transportBody struct{ *streamBody }

func (transportBody) Close() error { return nil }
