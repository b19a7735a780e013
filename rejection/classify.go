package rejection

import "strings"

// rule is one phrase that identifies a kind. The phrase alone is not enough:
// anchor must occur in the same body too, because other domains use the same
// words ("continuation cursor was not issued to this caller", "transaction
// does not belong to this connection", "webhook signature could not be
// verified").
type rule struct {
	kind   Kind
	phrase string
	anchor string
}

// rules are tried in order, most specific first: a body that gives a reason
// ("organization_id did not match the target organization") is classified by
// the reason, not by the generic "could not be verified" around it, and a
// foreign-content phrase outranks a pairing phrase in the same body.
var rules = []rule{
	{OrganizationMismatch, "did not match the target organization", "encrypted"},
	{ItemMismatch, "did not match the target item", "encrypted"},
	{Undecryptable, "could not be decrypted or parsed", "encrypted"},
	{NotIssued, "was not issued to this caller", "encrypted"},
	{ConnectionBound, "does not belong to this connection", "item id"},
	{NotVerified, "did not match the target", "encrypted"},
	{NotVerified, "could not be verified", "encrypted"},
	{Pairing, "was provided without its required following item", "'reasoning'"},
	{Pairing, "was provided without its required 'reasoning' item", "of type"},
	// Gemini: a thought signature minted for another account or upstream
	// (the Gemini API's INVALID_ARGUMENT, Vertex AI's "Unable to submit
	// request"), and Gemini 3's current-turn rule, which a filter that
	// dropped a call's signature without the sentinel would break.
	{NotVerified, "corrupted thought signature", "invalid_argument"},
	{NotVerified, "thought signature is not valid", "unable to submit request"},
	{Pairing, "is missing a thought_signature", "function call"},
}

// errorCode is the supplier code that means the same as "could not be
// verified". It is matched as a whole token, in any envelope.
const errorCode = "invalid_encrypted_content"

// Classify reports whether a supplier error is a replay rejection and of
// which kind. status is the HTTP status the supplier answered (0 when the
// transport had none, e.g. a WebSocket error frame); body is the error body,
// of which at most MaxBody bytes are read.
//
// Only client errors can be rejections: 2xx, 408, 429 and 5xx are None
// whatever their text, since a timeout, a rate limit or an outage is not
// caused by the history sent (an invalid_encrypted_content burst at 5xx is a
// supplier incident). Within a client error, a kind needs one of the phrases
// of docs/suppliers.md §2 with its anchor, or the invalid_encrypted_content code;
// the status or a generic code (bad_request, invalid_request_body, "") alone
// never classifies anything.
func Classify(status int, body string) Verdict {
	if !clientError(status) || body == "" {
		return Verdict{}
	}
	if len(body) > MaxBody {
		body = body[:MaxBody]
	}
	text := normalize(body)
	lower := asciiLower(text)
	kind := match(lower)
	if kind == None {
		return Verdict{}
	}
	return Verdict{Kind: kind, Item: itemID(text, lower)}
}

// clientError reports whether status may carry a rejection.
func clientError(status int) bool {
	if status == 0 {
		return true
	}
	return status >= 400 && status < 500 && status != 408 && status != 429
}

// match returns the kind of the first rule that holds in lower, then falls
// back to the bare code.
func match(lower string) Kind {
	for _, r := range rules {
		if strings.Contains(lower, r.phrase) && strings.Contains(lower, r.anchor) {
			return r.kind
		}
	}
	if hasToken(lower, errorCode) {
		return NotVerified
	}
	return None
}

// hasToken reports whether tok occurs in s with no identifier character on
// either side, so "x_invalid_encrypted_content_y" does not count.
func hasToken(s, tok string) bool {
	for off := 0; ; {
		i := strings.Index(s[off:], tok)
		if i < 0 {
			return false
		}
		start, end := off+i, off+i+len(tok)
		if (start == 0 || !idByte(s[start-1])) && (end == len(s) || !idByte(s[end])) {
			return true
		}
		off = end
	}
}
