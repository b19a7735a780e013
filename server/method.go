package server

import (
	"context"
	"encoding/json"
	"strings"

	uicontract "github.com/continuity-dev/continuity/ui-contract"
	"github.com/continuity-dev/continuity/wire"
)

// method is one entry of the method table. Its entry owns the reading of
// its params: read checks them and decodes them once, and what it decoded
// is what the handler receives (a decoded), so no handler parses its
// params again and no two readers of one frame can disagree. Entries are
// made by request and notice (methods.go lists them); the dispatcher only
// asks an entry for its flags, reads, runs what it read and ends its
// ownership of the params with done.
//
// The shape is the one golang.org/x/tools' jsonrpc2_v2 and the MCP go-sdk
// (mcp/shared.go: methodInfo, its unmarshalParams and methodFlags) give
// their handlers: a handler typed on its params, adapted by a generic
// constructor to the untyped table, with its properties as one flag set.
type method struct {
	flags methodFlags
	// read checks params (a failure is -32602 for a request and a logged
	// drop for a notification) and binds what it decoded to the handler.
	read func(params *wire.Params) (decoded, error)
}

// methodFlags are the properties of a method the dispatcher acts on.
type methodFlags uint8

const (
	// notification marks a method that takes no id: a request for it is
	// -32600, and its handler's result is ignored.
	notification methodFlags = 1 << iota
	// early marks methods allowed before initialize completes.
	early
	// opens marks initialize: once its params pass the read it holds the
	// gate opening, and its return opens or closes it (initGate).
	opens
	// inline marks a request answered in the read loop when its params
	// are small (runInline).
	inline
	// borrows marks a handler that only borrows the *wire.Params in its
	// decoded params (llm/payload, session events): the dispatcher
	// releases them once the reply is written (a notification's, once it
	// is applied), and a large frame's buffer then carries a later frame
	// (a 1 MiB payload per step, or a 17 MiB tool/result, would otherwise
	// be a fresh allocation each). A result that must outlive the reply
	// registers its copy with Params.BeforeRelease. Without it, the
	// decoded params may keep the bytes (the frame buffer is never
	// reused).
	borrows
)

// has reports whether every flag of g is set.
func (f methodFlags) has(g methodFlags) bool { return f&g == g }

// decoded is a message's params, read by its entry and bound to its
// handler.
type decoded interface {
	// run calls the handler with the decoded params. A notification's
	// result is always nil, nil.
	run(ctx context.Context) (any, error)
	// cancelled runs when a request is cancelled after its handler
	// already succeeded: the host will send nothing, so effects such as a
	// turn admission must be undone.
	cancelled()
	// replied runs once the reply is written (shutdown uses it to exit
	// only after its answer is flushed).
	replied()
}

// done ends the dispatcher's ownership of a message's params once its
// reply is written (or, for a notification, once it is applied): a
// borrowing handler's buffer is reused, a keeping handler's bytes are left
// to it.
func (m method) done(params *wire.Params) {
	if m.flags.has(borrows) {
		params.Release()
		return
	}
	params.Keep()
}

// reader decodes one method's params into what its handler takes.
type reader[P any] func(params *wire.Params) (P, error)

// handler is a typed entry under construction: its reader, its handler
// and what runs around it.
type handler[P any] struct {
	read reader[P]
	// shape, when set, is all the read loop checks; read then runs with
	// the handler, on the request's goroutine (see deferred).
	shape func(raw []byte) error
	run   func(ctx context.Context, p P) (any, error)
	undo  func(p P)
	after func()
	flags methodFlags
}

// request is a request entry: read decodes its params once, and run gets
// what it decoded.
func request[P any](read reader[P], run func(ctx context.Context, p P) (any, error)) *handler[P] {
	return &handler[P]{read: read, run: run}
}

// typedRequest is a request entry whose params are held to the named ui-contract
// schema and decoded into P (see schema).
func typedRequest[P any](schemaName string, run func(ctx context.Context, p P) (any, error)) *handler[P] {
	return request(schema[P](schemaName), run)
}

// notice is a notification entry: read decodes its params once, and apply
// gets what it decoded, in the read loop.
func notice[P any](read reader[P], apply func(p P)) *handler[P] {
	return &handler[P]{read: read, flags: notification,
		run: func(_ context.Context, p P) (any, error) { apply(p); return nil, nil }}
}

// deferred moves the read onto the request's goroutine, after the read
// loop has checked only shape: for params that may be tens of MiB
// (llm/payload, llm/payloadDigest), so that reading them never holds up
// the frames behind. A read failure is then answered by the handler's
// goroutine, with the same -32602.
func (h *handler[P]) deferred(shape func(raw []byte) error) *handler[P] {
	h.shape = shape
	return h
}

// onCancel sets what undoes a successful request the host cancelled.
func (h *handler[P]) onCancel(undo func(p P)) *handler[P] {
	h.undo = undo
	return h
}

// afterReply sets what runs once the request's reply is written.
func (h *handler[P]) afterReply(after func()) *handler[P] {
	h.after = after
	return h
}

// entry is the handler as a table entry with flags (notification is the
// notice constructor's to set).
func (h *handler[P]) entry(flags methodFlags) method {
	h.flags |= flags &^ notification
	if h.shape != nil {
		return method{flags: h.flags, read: func(params *wire.Params) (decoded, error) {
			if err := h.shape(params.Bytes()); err != nil {
				return nil, err
			}
			return &bound[P]{h: h, params: params, pending: true}, nil
		}}
	}
	return method{flags: h.flags, read: func(params *wire.Params) (decoded, error) {
		p, err := h.read(params)
		if err != nil {
			return nil, err
		}
		return &bound[P]{h: h, p: p}, nil
	}}
}

// bound is params decoded for their handler; pending ones are read when
// the handler runs (deferred).
type bound[P any] struct {
	h       *handler[P]
	p       P
	params  *wire.Params
	pending bool
}

func (b *bound[P]) run(ctx context.Context) (any, error) {
	if b.pending {
		p, err := b.h.read(b.params)
		if err != nil {
			return nil, err
		}
		b.p, b.pending, b.params = p, false, nil
	}
	return b.h.run(ctx, b.p)
}

func (b *bound[P]) cancelled() {
	if b.h.undo != nil && !b.pending {
		b.h.undo(b.p)
	}
}

func (b *bound[P]) replied() {
	if b.h.after != nil {
		b.h.after()
	}
}

// schema is the reader of params held to a ui-contract schema: present,
// valid under it (read strictly: a member name twice at any depth is
// refused, internal/strictjson) and then decoded into P. The decode
// cannot meet a duplicate, so encoding/json's last-copy rule never
// decides anything. A decode failure names the method (the schema's name
// without wire/ and .params) and the member, never the value.
func schema[P any](name string) reader[P] {
	methodName := strings.TrimSuffix(strings.TrimPrefix(name, "wire/"), ".params")
	return func(params *wire.Params) (P, error) {
		var p P
		raw := params.Bytes()
		if err := validParams(name, raw); err != nil {
			return p, err
		}
		if err := json.Unmarshal(raw, &p); err != nil {
			return p, invalidParams(methodName + ": " + wire.DecodeError(err))
		}
		return p, nil
	}
}

// validParams checks present params against the named schema.
func validParams(name string, raw []byte) error {
	if raw == nil {
		return invalidParams("params are required")
	}
	if err := uicontract.Validate(name, raw); err != nil {
		return invalidParams(err.Error())
	}
	return nil
}

// isObject is the read loop's check of params read later (deferred): only
// the cheap shape test, so a 64 MiB frame does not hold up later
// messages.
func isObject(raw []byte) error {
	if len(raw) == 0 || raw[0] != '{' {
		return invalidParams("params must be an object")
	}
	return nil
}
