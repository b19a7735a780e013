package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/sourcegraph/jsonrpc2"
	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/wire"
)

// hostCaller implements hostapi.Caller over the connection: plugin → host
// requests with string ids, deadlines from the caller's context, and
// $/cancelRequest sent to the host when the caller gives up. A large
// result (a session/read of a long session) reaches it as the host's bytes,
// parked by the stream, and is decoded once, into the caller's type.
type hostCaller struct {
	conn   *jsonrpc2.Conn
	stream *wire.Stream
	log    *zap.Logger
	seq    atomic.Uint64
}

func (h *hostCaller) Call(ctx context.Context, method string, params, result any) error {
	id := jsonrpc2.ID{Str: fmt.Sprintf("cty_%x", h.seq.Add(1)), IsString: true}
	call := h.stream.Await(id.Str)
	w, err := h.conn.DispatchCall(ctx, method, params, jsonrpc2.PickID(id))
	if err != nil {
		call.Forget()
		return fmt.Errorf("host %s: %w", method, err)
	}
	call.Sent()
	var raw json.RawMessage
	err = w.Wait(ctx, &raw)
	if ctxErr := ctx.Err(); ctxErr != nil && err == ctxErr {
		// Tell the host we no longer need the answer; the reply, if it
		// comes, is dropped by the connection.
		call.Forget()
		if err := h.conn.Notify(context.Background(), "$/cancelRequest", map[string]any{"id": id}); err != nil {
			h.log.Warn("cancellation not sent to the host", zap.String("method", method), zap.String("id", id.Str), zap.Error(err))
		}
		return fmt.Errorf("host %s: %w", method, ctxErr)
	}
	if err != nil {
		call.Forget()
		return hostError(method, err)
	}
	res := call.Result(raw)
	defer res.Release() // the decoded result keeps copies only
	if result == nil {
		return nil
	}
	if err := json.Unmarshal(res.Bytes(), result); err != nil {
		return fmt.Errorf("host %s: malformed result: %w", method, err)
	}
	return nil
}

// Notify sends a notification to the host. A failure is logged here, with
// the method only, because the features treat a lost notification as
// recoverable (the state it announces is stored and readable) and do not
// report it further.
func (h *hostCaller) Notify(ctx context.Context, method string, params any) error {
	err := h.conn.Notify(ctx, method, params)
	if err != nil {
		h.log.Warn("notification not sent to the host", zap.String("method", method), zap.Error(err))
	}
	return err
}

// hostError turns a JSON-RPC error from the host into a *diag.Error when the
// host named a code in data.code, so feature packages can match it.
func hostError(method string, err error) error {
	var re *jsonrpc2.Error
	if !errors.As(err, &re) {
		return fmt.Errorf("host %s: %w", method, err)
	}
	var data map[string]any
	if re.Data != nil {
		if err := json.Unmarshal(*re.Data, &data); err != nil {
			return fmt.Errorf("host %s: error %d with data that is not an object: %s", method, re.Code, re.Message)
		}
	}
	code, _ := data["code"].(string)
	if code == "" {
		return fmt.Errorf("host %s: error %d: %s", method, re.Code, re.Message)
	}
	msg := strings.TrimPrefix(re.Message, code+": ")
	return &diag.Error{Code: code, Message: msg, Data: data}
}
