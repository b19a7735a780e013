// The host side of the protocol that pi can serve: agents/get from the
// session header, session/read from the session's own event log, and
// session/create through a queued command (ctx.newSession can only be
// called from a command, and the tool that asks is still running).
import { createHash } from "node:crypto";
import type { BirthHeader } from "./events.ts";
import type { Extension } from "./extension.ts";
import { RPCError, type Params, type Peer } from "./rpc.ts";

export const SUCCESSOR_COMMAND = "continuity-successor";

/** A successor the plugin asked for, waiting for its queued command to run. */
export interface PendingSuccessor {
	sessionId: string;
	predecessorId: string;
	title: string;
	header: BirthHeader;
	context: unknown;
}

export const pendingSuccessors = new Map<string, PendingSuccessor>();
const created = new Map<string, string>(); // idempotencyKey → sessionId

function notFound(sessionId: string): RPCError {
	return new RPCError(-32001, `session-not-found: ${sessionId}`, { code: "session-not-found" });
}

function invalid(why: string): RPCError {
	return new RPCError(-32602, why);
}

/** successorId is the session id an idempotency key always yields (UUID-shaped). */
export function successorId(key: string): string {
	const h = createHash("sha256").update(`continuity-successor\0${key}`).digest("hex");
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function serveHost(peer: Peer, ext: Extension): void {
	peer.onRequest("agents/get", async (p: Params) => {
		const sid = String(p.sessionId ?? "");
		const log = ext.known(sid);
		if (!log) throw notFound(sid);
		return { sessionId: sid, header: log.header, status: ext.isIdle(sid) ? "idle" : "running" };
	});
	peer.onRequest("session/read", async (p: Params) => {
		const sid = String(p.sessionId ?? "");
		const log = ext.known(sid);
		if (!log) throw notFound(sid);
		const from = Number(p.fromSeq);
		const to = Number(p.toSeq);
		if (!Number.isInteger(from) || !Number.isInteger(to)) throw invalid("session/read: fromSeq and toSeq must be integers");
		return log.read(from, to);
	});
	peer.onRequest("session/create", async (p: Params) => {
		const key = typeof p.idempotencyKey === "string" ? p.idempotencyKey : "";
		const predecessorId = typeof p.predecessorId === "string" ? p.predecessorId : "";
		if (!key || !predecessorId) throw invalid("session/create: idempotencyKey and predecessorId are required");
		const prior = created.get(key);
		if (prior) return { sessionId: prior, created: false };
		const sessionId = successorId(key);
		const h = (p.header ?? {}) as Partial<BirthHeader>;
		const header: BirthHeader = { createdAt: Date.now(), isSeeded: h.isSeeded ?? true };
		if (h.origin) header.origin = h.origin;
		created.set(key, sessionId);
		ext.seeded.set(sessionId, header);
		pendingSuccessors.set(sessionId, { sessionId, predecessorId, title: String(p.title ?? ""), header, context: p.context });
		// pi 1.x runs a queued slash command when asked to expand it; pi
		// 0.73 cannot, and the input hook (successor.ts) asks the person.
		ext.pi.sendUserMessage(`/${SUCCESSOR_COMMAND} ${sessionId}`, { deliverAs: "followUp", expandPromptTemplates: true } as never);
		return { sessionId, created: true };
	});
	peer.onNotification("remote/event", (p: Params) => {
		ext.remoteEvent(String(p.event ?? ""), Array.isArray(p.args) ? p.args[0] : undefined);
	});
}
