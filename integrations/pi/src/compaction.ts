// pi's own compaction as the protocol's compaction bracket (docs/protocol.md
// §4): session_before_compact opens it (compaction/start), session_compact
// carries pi's summary as the checkpoint user/message and closes it
// (compaction/end), and pi 1.x's session_compact_failed closes it with the
// error. pi summarizes with its own model call, outside
// before_provider_request, and sends no encrypted reasoning, so no payload
// takes part; the bracket is what turns (the compaction notice) and
// managed context (a boundary at compaction/start, the checkpoint that
// resets its view) need to see. The open bracket is the SessionLog's, so
// it lives exactly as long as the session's log.
import { randomUUID } from "node:crypto";
import { EVENT_ENTRY, type SessionEvent, type SessionLog } from "./events.ts";

interface BranchEntry {
	type: string;
	id?: string;
	customType?: string;
	data?: unknown;
}

/**
 * replacedThrough is the seq of the last continuity event pi's summary
 * replaces: the last one kept in the session file before the first entry
 * pi keeps (the events are custom entries between pi's own). -1 when none.
 */
export function replacedThrough(entries: BranchEntry[], firstKeptEntryId: string): number {
	let seq = -1;
	for (const e of entries) {
		if (e.id === firstKeptEntryId) break;
		if (e.type === "custom" && e.customType === EVENT_ENTRY) seq = (e.data as SessionEvent).seq;
	}
	return seq;
}

function turnOf(log: SessionLog): number | null {
	// Between prompts (a manual /compact) the bracket belongs to no turn.
	return log.turnOpen ? log.turn : null;
}

/**
 * startCompaction opens a bracket. One left open means pi 0.73 gave no
 * outcome for the last one (it has no session_compact_failed): it did not
 * complete, so it ends as failed rather than staying running.
 */
export function startCompaction(log: SessionLog, endSeq: number): number {
	settleStale(log);
	const compactionId = randomUUID();
	log.compaction = { compactionId, endSeq }; // endSeq -1: pi's summary replaces no event
	return log.emit("compaction/start", { compactionId, turn: turnOf(log) }).seq;
}

/** settleStale ends a bracket pi never reported on (called before a new turn or compaction). */
export function settleStale(log: SessionLog): void {
	const { compactionId } = log.compaction ?? {};
	if (!compactionId) return;
	log.compaction = undefined;
	log.emit("compaction/end", { compactionId, turn: turnOf(log), error: { message: "pi reported no outcome for this compaction" } });
}

/**
 * compacted writes pi's summary as the checkpoint, replacing the events
 * pi summarized (format 4's range; the events of the entries pi keeps stay
 * in view), and closes the bracket as completed.
 */
export function compacted(log: SessionLog, summary: string): void {
	const b = log.compaction;
	if (!b) return; // a compaction pi ran before this extension saw it start
	log.compaction = undefined;
	const { compactionId, endSeq } = b;
	const data = { id: randomUUID(), role: "user", content: [{ type: "text", text: summary }], source: { kind: "compact-checkpoint", compactionId } };
	log.emit("user/message", data, endSeq >= 0 ? { op: "replace", startSeq: 0, endSeq } : "append");
	log.emit("compaction/end", { compactionId, turn: turnOf(log) });
}

/** compactionFailed closes the bracket with pi's error; an abort reads as cancelled. */
export function compactionFailed(log: SessionLog, aborted: boolean, errorMessage?: string): void {
	const { compactionId } = log.compaction ?? {};
	if (!compactionId) return;
	log.compaction = undefined;
	const message = aborted ? "compaction aborted" : (errorMessage ?? "compaction failed");
	log.emit("compaction/end", { compactionId, turn: turnOf(log), error: { message } });
}
