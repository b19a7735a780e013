package server

import "github.com/continuity-dev/continuity/wire"

// inlineBytes bounds the params of a request answered in the read loop:
// llm/payloadDigest's for a body of a few MiB (about 1,100 items), whose
// canonical read and decision take tens of microseconds. Larger lists, and
// the schema walk a list outside the canonical form takes, run on their
// own goroutine, so the frames behind them never wait long.
const inlineBytes = 64 << 10

// runInline answers a request of an inline method in the read loop. Such
// a method is a short computation that never calls back into the host, on
// the path of every model call: handing it to a goroutine wakes a second
// thread, which on a busy machine costs as much as the work itself. It is
// answered before the next frame is read, so no $/cancelRequest can reach
// it. The notices it causes are held until its reply is written (quiet):
// the host reads the answer it waits for first, and the notice queue's
// goroutine does not wake to compete with it.
func (d *dispatcher) runInline(id wire.ID, m method, call decoded, params *wire.Params) {
	d.mu.Lock()
	_, dup := d.inflight[id.Key()]
	d.mu.Unlock()
	if dup {
		params.Release()
		d.reply(id, nil, &protocolError{code: wire.CodeInvalidRequest, msg: "a request with this id is still running"})
		return
	}
	if d.quiet != nil {
		defer d.quiet()()
	}
	result, err := call.run(d.base)
	d.reply(id, result, err)
	m.done(params)
}
