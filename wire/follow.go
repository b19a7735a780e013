package wire

import (
	"github.com/continuity-dev/continuity/jsonscan"
)

// A large request frame can be followed while it arrives: the owner's
// work on its params (the plugin filters a 64 MiB llm/payload) starts on
// the frame's buffer as the bytes land, behind the read loop's
// validation, instead of after the newline. The wire knows nothing of
// that work; it offers the frame (FollowFunc) once its prefix shows the
// method and where the params begin, reports each read (Arrived) and the
// end (Finish), and closes the follower whenever the frame will not be
// handed out as the bytes the follower saw: it outgrew its buffer, went
// over the limit, was malformed, the connection closed. A valid request
// frame carries its follower in its Params (Params.Follower) until they
// are released.

// Follower is the owner's work following one frame's bytes.
type Follower interface {
	// Arrived reports that buf[:n] of the buffer the follower was given
	// has arrived and been validated as the start of a JSON document (a
	// trusted scan may read it: see jsonscan.Validator.Failed); those
	// bytes do not change until Close has returned. It is called on the
	// read loop after every read, and must be cheap.
	Arrived(n int)
	// Finish reports that the frame ended at buf[:n] (its newline, or
	// the end of input) and is valid JSON: nothing more arrives. It is a
	// valid request only if its Params carry the follower.
	Finish(n int)
	// Close ends the work and returns once nothing of it reads the
	// buffer. It is called exactly once per follower, from the read loop
	// or from whoever releases the frame's Params.
	Close()
}

// FollowFunc is offered each large request frame being read into one
// buffer whose prefix shows a method and the start of its params: method
// is the method's name (decoded), buf the frame's buffer from the frame's
// first byte — len(buf) is what has arrived, cap(buf) as far as the frame
// can grow in it — and params the offset in buf of the params value's
// first byte. strs are the frame's strings of jsonscan.LongString bytes
// or more as the read loop's validator passes them, bound to buf: each is
// published before the Arrived that covers it, so the follower's trusted
// scan (Scanner.Long) steps over it and knows whether it is plain
// without reading it again. It returns the work following the frame, or
// nil. It runs on the read loop and must not block.
type FollowFunc func(method string, buf []byte, params int, strs jsonscan.Spans) Follower

// followable finds, in the arrived prefix b of a frame, the request's
// method and the offset of its params value. It needs the method before
// the params (a host writes them in that order) and every member before
// them whole; anything else is not followed.
func followable(b []byte) (method string, params int, ok bool) {
	sc := jsonscan.Scanner{B: b}
	i := sc.WS(0)
	if i >= len(b) || b[i] != '{' {
		return "", 0, false
	}
	i = sc.WS(i + 1)
	var raw []byte
	for i < len(b) && b[i] == '"' {
		keyEnd, v, err := sc.Key(i)
		if err != nil || v >= len(b) {
			return "", 0, false
		}
		name := b[i:keyEnd]
		if sc.StrIs(name, "params") {
			if raw == nil {
				return "", 0, false
			}
			m, ok := sc.Decoded(raw[1 : len(raw)-1])
			return string(m), v, ok
		}
		end, err := sc.Value(v)
		if err != nil || end >= len(b) {
			return "", 0, false
		}
		if sc.StrIs(name, "method") {
			if b[v] != '"' {
				return "", 0, false
			}
			raw = b[v:end]
		}
		if i = sc.WS(end); i >= len(b) || b[i] != ',' {
			return "", 0, false
		}
		i = sc.WS(i + 1)
	}
	return "", 0, false
}

// startFollow offers the frame being gathered in buf (len: what has
// arrived) to the owner's FollowFunc. A follower is shown only validated
// bytes, so there is none when frames are not validated as they arrive.
func (f *frameReader) startFollow(buf []byte) Follower {
	if f.follow == nil || !checkWhileArriving {
		return nil
	}
	method, params, ok := followable(buf)
	if !ok {
		return nil
	}
	return f.follow(method, buf, params, f.val.Follow(buf))
}

// offer offers the frame gathered so far to the owner (startFollow) once
// followFrom of its bytes have arrived in one buffer — blocks[0] holds
// the bytes validated, and arrived of that buffer's bytes have been read —
// and shows the follower, if any, what has been validated. It asks once
// per buffer the frame is gathered in (tried): the follow costs goroutines
// and a hand-off that only a large frame repays, and a frame that leaves
// its first buffer for a large one (see gather) can be followed there.
func (f *frameReader) offer(fol Follower, tried *bool, blocks [][]byte, arrived int) Follower {
	if fol != nil || *tried || len(blocks) != 1 || arrived < f.followFrom {
		return fol
	}
	*tried = true
	b := blocks[0]
	return f.validated(f.startFollow(b[:arrived]), len(b))
}

// validated shows fol (if any) the frame's first n bytes once they have
// been fed to the validator, with the strings it passed in them
// (Validator.Publish): when it has found them not JSON the frame will be
// answered as malformed, so fol is closed instead, and nil is returned.
func (f *frameReader) validated(fol Follower, n int) Follower {
	if fol == nil {
		return nil
	}
	if f.val.Failed() {
		fol.Close()
		return nil
	}
	f.val.Publish()
	fol.Arrived(n)
	return fol
}

// endFollow closes the follower of a frame that will not be handed out
// in the buffer it followed.
func endFollow(fol Follower) {
	if fol != nil {
		fol.Close()
	}
}
