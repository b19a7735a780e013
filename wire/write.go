package wire

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"go.uber.org/zap"
)

// RawResult is a result written byte for byte as the concatenation of its
// parts: slices of the host's own frames (a filtered payload, an echoed
// config) between small encoded pieces. Its type says that it borrows:
// the slices must stay unchanged until Reply returns, so whoever owns them
// (the request's Params) releases them only after the reply. Build one
// with Object.
type RawResult struct{ parts [][]byte }

// Object starts a RawResult that is a JSON object.
func Object() *RawObject { return &RawObject{} }

// RawObject builds a RawResult member by member.
type RawObject struct {
	parts [][]byte
	err   error
}

// Set adds a member encoded with encoding/json (for small values).
func (o *RawObject) Set(name string, v any) *RawObject {
	b, err := json.Marshal(v)
	if err != nil && o.err == nil {
		o.err = err
	}
	return o.Raw(name, b)
}

// Raw adds a member whose value is the concatenation of parts, which must
// be one JSON value together; they are written as they are. No bytes at
// all would make the reply invalid JSON, so Result then fails.
func (o *RawObject) Raw(name string, parts ...[]byte) *RawObject {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	if n == 0 && o.err == nil {
		o.err = errors.New("wire: result member " + strconv.Quote(name) + " has no value")
	}
	key, _ := json.Marshal(name)
	sep := byte(',')
	if len(o.parts) == 0 {
		sep = '{'
	}
	o.parts = append(o.parts, append(append([]byte{sep}, key...), ':'))
	o.parts = append(o.parts, parts...)
	return o
}

// Result ends the object.
func (o *RawObject) Result() (RawResult, error) {
	if o.err != nil {
		return RawResult{}, o.err
	}
	if len(o.parts) == 0 {
		return RawResult{parts: [][]byte{[]byte("{}")}}, nil
	}
	return RawResult{parts: append(o.parts, []byte{'}'})}, nil
}

// Reply answers the request with the id. A RawResult is written as it
// is; any other result is encoded with encoding/json.
func (s *Stream) Reply(id ID, result any) error {
	head := append(append([]byte(`{"jsonrpc":"2.0","id":`), idBytes(id)...), `,"result":`...)
	if r, ok := result.(RawResult); ok {
		return s.writeLine(context.Background(), append(append([][]byte{head}, r.parts...), []byte("}\n")), int64(len(head)))
	}
	b, err := json.Marshal(result)
	if err != nil {
		return err
	}
	b = UnescapeHTML(b)
	return s.writeLine(context.Background(), [][]byte{head, b, []byte("}\n")}, int64(len(head)+len(b)))
}

// ReplyError answers the request with the id with an error.
func (s *Stream) ReplyError(id ID, e *Error) error {
	return s.writeError(idBytes(id), e)
}

// WriteObject writes one message of the library's as one line. The
// library writes nothing on its own (Conn sends our calls and
// notifications itself); it is here because the library's ObjectStream
// has it.
func (s *Stream) WriteObject(obj any) error {
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	b = UnescapeHTML(b)
	return s.writeLine(context.Background(), [][]byte{b, {'\n'}}, int64(len(b)))
}

// writeRequest writes a request or notification of ours (id "" is a
// notification) with the members in the order the library wrote them.
// params nil leaves the member out. ctx bounds only the wait for the
// pipe to be free: a write under way cannot be taken back.
func (s *Stream) writeRequest(ctx context.Context, id, method string, params any) error {
	head := make([]byte, 0, 64+len(method))
	if id != "" {
		head = append(strconv.AppendQuote(append(head, `{"id":`...), id), ',')
	} else {
		head = append(head, '{')
	}
	head = append(head, `"jsonrpc":"2.0","method":`...)
	mb, err := json.Marshal(method)
	if err != nil {
		return err
	}
	head = append(head, UnescapeHTML(mb)...)
	if params == nil {
		head = append(head, "}\n"...)
		return s.writeLine(ctx, [][]byte{head}, int64(len(head)))
	}
	pb, err := json.Marshal(params)
	if err != nil {
		return err
	}
	pb = UnescapeHTML(pb)
	head = append(head, `,"params":`...)
	return s.writeLine(ctx, [][]byte{head, pb, []byte("}\n")}, int64(len(head)+len(pb)+2))
}

// WriteError writes an error response with the given id (nil: id null).
func (s *Stream) WriteError(id json.RawMessage, e *Error) {
	if id == nil {
		id = json.RawMessage("null")
	}
	if err := s.writeError(id, e); err != nil {
		s.log.Warn("cannot write error reply", zap.Error(err))
	}
}

func (s *Stream) writeError(id []byte, e *Error) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	head := append(append([]byte(`{"jsonrpc":"2.0","id":`), id...), `,"error":`...)
	return s.writeLine(context.Background(), [][]byte{head, b, []byte("}\n")}, int64(len(head)+len(b)))
}

// writeLine writes parts as one line. Large parts go to the pipe directly;
// small ones are gathered first, so a payload kept in many slices is not
// one write per slice. The n bytes encoded for the line count in flight
// while it waits for the pipe (the borrowed slices of a RawResult are
// counted by their Params already), so replies the host does not read
// hold up reading. A line waits for the lines before it; ctx ending
// first gives it up unwritten (a line is never cut).
func (s *Stream) writeLine(ctx context.Context, parts [][]byte, n int64) error {
	s.budget.write(1, n)
	defer s.budget.write(-1, n)
	select {
	case s.wlock <- struct{}{}:
	default:
		select {
		case s.wlock <- struct{}{}:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	defer func() { <-s.wlock }()
	for _, p := range parts {
		if _, err := s.w.Write(p); err != nil {
			return err
		}
	}
	return s.w.Flush()
}

func idBytes(id ID) []byte {
	b, _ := id.MarshalJSON()
	return b
}
