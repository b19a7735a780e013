// The host side of the protocol that pi can serve: agents/get from the
// session header, session/read from the session's own event log, and
// session/create through a queued command (ctx.newSession can only be
// called from a command, and the tool that asks is still running). What
// these handlers remember lives in objects the extension owns (HostDeps),
// never in this module.
import type { CreatedSessions } from "./created.ts";
import type { BirthHeader, SessionEvent } from "./events.ts";
import { RPCError, type Params, type Peer } from "./rpc.ts";

export const SUCCESSOR_COMMAND = "continuity-successor";

/** What serveHost needs of the extension. */
export interface HostDeps {
	/** known is the log of a session this process has seen. */
	known(sessionId: string): { header: BirthHeader; read(fromSeq: number, toSeq: number): { events: SessionEvent[]; complete: boolean } } | undefined;
	isIdle(sessionId: string): boolean;
	created: Pick<CreatedSessions, "create">;
	/** queue delivers a prompt to pi as a follow-up (pi.sendUserMessage). */
	queue(text: string): void;
	/** remoteEvent shows what the plugin pushes. */
	remoteEvent(event: string, args: unknown): void;
}

function notFound(sessionId: string): RPCError {
	return new RPCError(-32001, `session-not-found: ${sessionId}`, { code: "session-not-found" });
}

function invalid(why: string): RPCError {
	return new RPCError(-32602, why);
}

export function serveHost(peer: Peer, host: HostDeps): void {
	peer.onRequest("agents/get", async (p: Params) => {
		const sid = String(p.sessionId ?? "");
		const log = host.known(sid);
		if (!log) throw notFound(sid);
		return { sessionId: sid, header: log.header, status: host.isIdle(sid) ? "idle" : "running" };
	});
	peer.onRequest("session/read", async (p: Params) => {
		const sid = String(p.sessionId ?? "");
		const log = host.known(sid);
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
		const h = (p.header ?? {}) as Partial<BirthHeader>;
		const header: BirthHeader = { createdAt: Date.now(), isSeeded: h.isSeeded ?? true };
		if (h.origin) header.origin = h.origin;
		const res = host.created.create(key, { predecessorId, title: String(p.title ?? ""), header, context: p.context });
		// pi 1.x runs a queued slash command when asked to expand it; pi
		// 0.73 cannot, and the input hook (successor.ts) asks the person.
		if (res.created) host.queue(`/${SUCCESSOR_COMMAND} ${res.sessionId}`);
		return res;
	});
	peer.onNotification("remote/event", (p: Params) => {
		host.remoteEvent(String(p.event ?? ""), Array.isArray(p.args) ? p.args[0] : undefined);
	});
}
