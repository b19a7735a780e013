package continuation

import (
	"strings"
)

// controlText is the first section of every successor context: the
// runtime's instructions about what this context is and how to reach more.
const controlText = "This session continues an earlier session. The runtime wrote the lineage block, the state and the initiating message exactly; the handoff is the previous agent's orientation, not the record. Answer the initiating message here. Sources listed as omitted stay linked: read them exactly with session_recall, walk the path with session_lineage, and inspect this context's manifest with projection_manifest. Do not rely on paraphrase where an exact source is available."

// stateNote says why grants and account identity are absent from the state
// section: the seed's rule is to recompute them from current policy, which
// the host does for the successor, never to copy them.
const stateNote = "Grants, permissions and account identity are recomputed by the host from current policy; they are not carried."

// attrEscaper escapes a value for an XML attribute.
var attrEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")

// lineageBlock writes the runtime-generated <session_continuation> block.
// The model never authors it: handoff text containing such a block is
// refused before compiling (see lineageTag).
func lineageBlock(originID, predecessorID, edgeID, initiatingEventID, manifestID string) string {
	a := attrEscaper.Replace
	return "<session_continuation>\n" +
		`  <origin session="` + a(originID) + "\" />\n" +
		`  <predecessor session="` + a(predecessorID) + `" edge="` + a(edgeID) + "\" />\n" +
		`  <initiating_event id="` + a(initiatingEventID) + "\" />\n" +
		`  <projection manifest="` + a(manifestID) + "\" />\n" +
		"</session_continuation>"
}
