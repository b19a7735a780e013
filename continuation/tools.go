package continuation

// Tool names this package declares in initialize.
const (
	ToolContinueSession    = "continue_session"
	ToolSessionRecall      = "session_recall"
	ToolSessionLineage     = "session_lineage"
	ToolProjectionManifest = "projection_manifest"
)

// ToolDef declares one tool. InputSchema names the ui-contract schema of its
// arguments (tool/<name>.args); those schemas are self-contained (no $ref
// to other files) so the plugin can send the file's bytes as the tool's
// inputSchema unchanged.
type ToolDef struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	InputSchema string `json:"-"`
}

// ToolDefinitions lists the continuation tools for initialize.
func ToolDefinitions() []ToolDef {
	return []ToolDef{
		{ToolContinueSession, "Continue this work in a fresh successor session instead of answering here, when the subject or phase changes or the context is crowded. Give a handoff for orientation and cite exact sources; the runtime adds lineage and carries the initiating message exactly. Ends this turn; the successor answers.", "tool/continue_session.args"},
		{ToolSessionRecall, "Read exact events (by event id) of a session in this session's continuation lineage, including sources a projection left out.", "tool/session_recall.args"},
		{ToolSessionLineage, "List the continuation path from the origin session to this session, with each edge's reason.", "tool/session_lineage.args"},
		{ToolProjectionManifest, "Read the projection manifest that seeded this session (or another manifest on its lineage): what was included, what was omitted and why.", "tool/projection_manifest.args"},
	}
}
