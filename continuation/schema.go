package continuation

// component is this package's name in sqlstore's migration table.
const component = "continuation"

// migrations create the continuation store. An edge row is written
// "pending" (no successor yet) together with its manifest, handoff, state
// and selected events before the host is asked to create the successor,
// and turns "committed" in one update once the host answers; so a crash at
// any point leaves either nothing, a pending intent that a replay finishes
// with the very same context, or a committed continuation. The UNIQUE
// successor_id gives each successor one predecessor; cycles are refused in
// code at commit. Nothing is ever deleted.
var migrations = []string{`
CREATE TABLE continuation_edges (
	id              TEXT PRIMARY KEY,
	idempotency_key TEXT NOT NULL UNIQUE,
	args_digest     TEXT NOT NULL,
	predecessor_id  TEXT NOT NULL,
	successor_id    TEXT UNIQUE,
	origin_id       TEXT NOT NULL,
	reason          TEXT NOT NULL,
	title           TEXT NOT NULL,
	actor_session   TEXT NOT NULL,
	actor_call      TEXT NOT NULL,
	actor_turn      INTEGER NOT NULL,
	corrects        TEXT REFERENCES continuation_edges(id),
	initiating_seq  INTEGER NOT NULL,
	created_at      INTEGER NOT NULL,
	committed_at    INTEGER,
	state           TEXT NOT NULL CHECK (state IN ('pending', 'committed')),
	context         BLOB NOT NULL,
	CHECK ((state = 'pending') = (successor_id IS NULL)),
	CHECK (successor_id IS NULL OR successor_id <> predecessor_id)
);
CREATE INDEX continuation_edges_predecessor ON continuation_edges(predecessor_id, created_at);
CREATE TABLE continuation_manifests (
	id      TEXT PRIMARY KEY,
	edge_id TEXT NOT NULL UNIQUE REFERENCES continuation_edges(id),
	body    BLOB NOT NULL,
	digest  TEXT NOT NULL
);
CREATE TABLE continuation_handoffs (
	edge_id TEXT PRIMARY KEY REFERENCES continuation_edges(id),
	body    BLOB NOT NULL,
	digest  TEXT NOT NULL
);
CREATE TABLE continuation_state (
	edge_id TEXT NOT NULL REFERENCES continuation_edges(id),
	ord     INTEGER NOT NULL,
	kind    TEXT NOT NULL,
	key     TEXT NOT NULL,
	body    BLOB NOT NULL,
	PRIMARY KEY (edge_id, ord)
);
CREATE TABLE continuation_events (
	session_id TEXT NOT NULL,
	seq        INTEGER NOT NULL,
	digest     TEXT NOT NULL,
	type       TEXT NOT NULL,
	time       BLOB,
	data       BLOB,
	PRIMARY KEY (session_id, seq, digest)
);
CREATE TABLE continuation_selected (
	manifest_id TEXT NOT NULL REFERENCES continuation_manifests(id),
	session_id  TEXT NOT NULL,
	seq         INTEGER NOT NULL,
	digest      TEXT NOT NULL,
	PRIMARY KEY (manifest_id, session_id, seq)
);
CREATE INDEX continuation_selected_event ON continuation_selected(session_id, seq);
`,
	// 2: which turn a continuation ended (one continuation per turn),
	// which edge owns each pending run it carried (one owner per run), and
	// when the host last failed to create an edge's successor (such an
	// edge is not under way: it counts toward no limit until replayed).
	`
ALTER TABLE continuation_edges ADD COLUMN create_failed_at INTEGER;
CREATE INDEX continuation_edges_actor ON continuation_edges(actor_session, actor_turn);
CREATE TABLE continuation_run_owners (
	session_id TEXT NOT NULL,
	run_id     TEXT NOT NULL,
	edge_id    TEXT NOT NULL REFERENCES continuation_edges(id),
	PRIMARY KEY (session_id, run_id)
);
`,
	// 3: whether the host started each successor's first run (session/run):
	// started, failed (with continuity's code and the host's) or manual (the
	// host cannot start runs).
	`
CREATE TABLE continuation_successor_runs (
	edge_id    TEXT PRIMARY KEY REFERENCES continuation_edges(id),
	state      TEXT NOT NULL,
	code       TEXT NOT NULL DEFAULT '',
	host_code  TEXT NOT NULL DEFAULT '',
	at         INTEGER NOT NULL
);
`,
	// 4: how often the successor recalled each source its manifest left
	// out (a projection-quality signal for the handoff inspector).
	`
CREATE TABLE continuation_omitted_recalls (
	manifest_id TEXT NOT NULL REFERENCES continuation_manifests(id),
	item        INTEGER NOT NULL,
	count       INTEGER NOT NULL,
	PRIMARY KEY (manifest_id, item)
);
`}
