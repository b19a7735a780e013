// pi's own compaction as the protocol's compaction bracket (docs/protocol.md
// §4): session_before_compact opens it (compaction/start), session_compact
// carries pi's summary as the checkpoint user/message and closes it
// (compaction/end), and pi 1.x's session_compact_failed closes it with the
// error. pi summarizes with its own model call, outside
// before_provider_request, and sends no encrypted reasoning, so no payload
// takes part; the bracket is what turns (the compaction notice) and
// managed context (a boundary at compaction/start, the checkpoint that
// resets its view) need to see.
import { randomUUID } from "node:crypto";
import type { SessionLog } from "./events.ts";

/** The open bracket of each session, by session id. */
const open = new Map<string, string>();

function turnOf(log: SessionLog): number | null {
	// Between prompts (a manual /compact) the bracket belongs to no turn.
	return log.turnOpen ? log.turn : null;
}

/**
 * startCompaction opens a bracket. One left open means pi 0.73 gave no
 * outcome for the last one (it has no session_compact_failed): it did not
 * complete, so it ends as failed rather than staying running.
 */
export function startCompaction(log: SessionLog): void {
	settleStale(log);
	const compactionId = randomUUID();
	open.set(log.sessionId, compactionId);
	log.emit("compaction/start", { compactionId, turn: turnOf(log) });
}

/** settleStale ends a bracket pi never reported on (called before a new turn or compaction). */
export function settleStale(log: SessionLog): void {
	const compactionId = open.get(log.sessionId);
	if (!compactionId) return;
	open.delete(log.sessionId);
	log.emit("compaction/end", { compactionId, turn: turnOf(log), error: { message: "pi reported no outcome for this compaction" } });
}

/** compacted writes pi's summary as the checkpoint and closes the bracket as completed. */
export function compacted(log: SessionLog, summary: string): void {
	const compactionId = open.get(log.sessionId);
	if (!compactionId) return; // a compaction pi ran before this extension saw it start
	open.delete(log.sessionId);
	log.emit(
		"user/message",
		{ id: randomUUID(), role: "user", content: [{ type: "text", text: summary }], source: { kind: "compact-checkpoint", compactionId } },
		"append",
	);
	log.emit("compaction/end", { compactionId, turn: turnOf(log) });
}

/** compactionFailed closes the bracket with pi's error; an abort reads as cancelled. */
export function compactionFailed(log: SessionLog, aborted: boolean, errorMessage?: string): void {
	const compactionId = open.get(log.sessionId);
	if (!compactionId) return;
	open.delete(log.sessionId);
	const message = aborted ? "compaction aborted" : (errorMessage ?? "compaction failed");
	log.emit("compaction/end", { compactionId, turn: turnOf(log), error: { message } });
}
