package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"github.com/continuity-dev/continuity/diag"
	"github.com/continuity-dev/continuity/wire"
)

// hostCaller implements hostapi.Caller over the connection: plugin → host
// requests with string ids, deadlines from the caller's context, and
// $/cancelRequest sent to the host when the caller gives up (wire.Conn.Call
// retires the call and sends it without making the caller wait). A large
// result (a session/read of a long session) reaches it as the host's
// bytes and is decoded once, into the caller's type.
type hostCaller struct {
	conn *wire.Conn
	log  *zap.Logger
}

func (h *hostCaller) Call(ctx context.Context, method string, params, result any) error {
	res, err := h.conn.Call(ctx, method, params)
	if ctxErr := ctx.Err(); ctxErr != nil && err == ctxErr {
		return fmt.Errorf("host %s: %w", method, ctxErr)
	}
	if err != nil {
		return hostError(method, err)
	}
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
	var re *wire.RemoteError
	if !errors.As(err, &re) {
		return fmt.Errorf("host %s: %w", method, err)
	}
	var data map[string]any
	if re.Data != nil {
		if err := json.Unmarshal(re.Data, &data); err != nil {
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
