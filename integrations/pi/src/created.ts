// The sessions this extension created for the plugin (session/create):
// the id each idempotency key yielded, the birth header the plugin gave
// each, and the successors still waiting for their queued command. One
// CreatedSessions lives as long as the extension that owns it, so two
// extensions (two pi processes, or two tests) never share one.
import { createHash } from "node:crypto";
import type { BirthHeader } from "./events.ts";

/** A successor the plugin asked for, waiting for its queued command to run. */
export interface PendingSuccessor {
	sessionId: string;
	predecessorId: string;
	title: string;
	header: BirthHeader;
	context: unknown;
}

/** successorId is the session id an idempotency key always yields (UUID-shaped). */
export function successorId(key: string): string {
	const h = createHash("sha256").update(`continuity-successor\0${key}`).digest("hex");
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export class CreatedSessions {
	/** idempotencyKey → the session id it created. */
	private readonly byKey = new Map<string, string>();
	/** The birth header of each session created here. */
	private readonly headers = new Map<string, BirthHeader>();
	/** The successors whose queued command has not run yet. */
	private readonly pending = new Map<string, PendingSuccessor>();

	/**
	 * create records a successor for key, or returns the one key created
	 * before (created false) so a repeated session/create makes nothing new.
	 */
	create(key: string, s: Omit<PendingSuccessor, "sessionId">): { sessionId: string; created: boolean } {
		const prior = this.byKey.get(key);
		if (prior) return { sessionId: prior, created: false };
		const sessionId = successorId(key);
		this.byKey.set(key, sessionId);
		this.headers.set(sessionId, s.header);
		this.pending.set(sessionId, { sessionId, ...s });
		return { sessionId, created: true };
	}

	/** header is the birth header of a session created here. */
	header(sessionId: string): BirthHeader | undefined {
		return this.headers.get(sessionId);
	}

	/** get is the successor waiting for its command, if it still waits. */
	get(sessionId: string): PendingSuccessor | undefined {
		return this.pending.get(sessionId);
	}

	/** has says whether sessionId's successor still waits for its command. */
	has(sessionId: string): boolean {
		return this.pending.has(sessionId);
	}

	/** values are the successors still waiting, in the order they were asked for. */
	values(): IterableIterator<PendingSuccessor> {
		return this.pending.values();
	}

	/** delete marks the successor's command as run. */
	delete(sessionId: string): void {
		this.pending.delete(sessionId);
	}
}
