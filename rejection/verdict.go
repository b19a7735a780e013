package rejection

// Kind names the rejection a supplier answered. The zero Kind (None) means
// the error is not a replay rejection.
type Kind string

// The kinds a supplier error can be classified as.
const (
	// None: not a replay rejection (rate limit, overflow, credentials, …).
	None Kind = ""
	// NotVerified: encrypted content that could not be verified with no
	// more specific reason, or only the invalid_encrypted_content code.
	NotVerified Kind = "not-verified"
	// Undecryptable: "Encrypted content could not be decrypted or parsed",
	// what pools of upstream accounts answer for another member's content.
	Undecryptable Kind = "undecryptable"
	// OrganizationMismatch: content minted for another organization or
	// account ("organization_id did not match the target organization").
	OrganizationMismatch Kind = "organization-mismatch"
	// ItemMismatch: content minted for another item id ("item_id did not
	// match the target item id").
	ItemMismatch Kind = "item-mismatch"
	// NotIssued: a gateway's "encrypted_content was not issued to this
	// caller".
	NotIssued Kind = "not-issued"
	// ConnectionBound: Copilot's "input item ID does not belong to this
	// connection", item ids minted on another account or connection.
	ConnectionBound Kind = "connection-bound"
	// Pairing: an fc_/msg_ id sent without its reasoning item, or a
	// reasoning item sent without its following item. It follows from
	// dropping reasoning while keeping paired ids, not from foreign content.
	Pairing Kind = "pairing"
)

// ReplayScope reports whether the kind means that history minted for another
// account, organization or connection was replayed — the failure that
// visible-history continuation removes, and the only one for which the
// composer offers to enable it. Pairing rejections are rejections too, but
// enabling continuation is not their remedy (they come from a filter that
// dropped reasoning and kept its paired ids), so they get guidance only.
func (k Kind) ReplayScope() bool {
	switch k {
	case NotVerified, Undecryptable, OrganizationMismatch, ItemMismatch, NotIssued, ConnectionBound:
		return true
	}
	return false
}

// Verdict is the outcome of Classify. It holds no supplier text: only the
// kind and, when the supplier named one, the id of the offending item.
type Verdict struct {
	Kind Kind
	// Item is the item id the supplier named (rs_…, fc_…, msg_…, cmp_…,
	// ctc_…), or "" when it named none. Only ids of the documented shape are
	// kept, so ciphertext or message text can never end up here.
	Item string
}

// Rejected reports whether the error is a replay rejection of any kind.
func (v Verdict) Rejected() bool { return v.Kind != None }

// ReplayScope reports whether the verdict should offer the enable control.
func (v Verdict) ReplayScope() bool { return v.Kind.ReplayScope() }

// String renders the verdict for logs, e.g. "organization-mismatch rs_12".
func (v Verdict) String() string {
	switch {
	case v.Kind == None:
		return "none"
	case v.Item == "":
		return string(v.Kind)
	}
	return string(v.Kind) + " " + v.Item
}
