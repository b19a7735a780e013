// The pi sessions this process has seen: each one's SessionLog (its DSH
// events) and Issuers (its reasoning's issuance), made on first use from
// the session's own entries, and the session pi shows now. Handlers read
// the session from the ctx they are given, so a session replaced by /new,
// /resume or a successor is followed.
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import { type BirthHeader, birthHeader, type PiMessage, type SessionEvent, SessionLog } from "./events.ts";
import { Issuers } from "./provenance.ts";

/** HEADER_ENTRY keeps the birth evidence the plugin gave a successor it created. */
export const HEADER_ENTRY = "continuity-header";

type Entry = { type: string; customType?: string; data?: unknown };

/** What Sessions needs around it: pi's entry writer, the plugin's event sink, and the headers of sessions created here. */
export interface SessionsDeps {
	/** append writes a custom entry into the current session (pi.appendEntry). */
	append(customType: string, data: unknown): void;
	/** send delivers a session event to the plugin, if it runs. */
	send(sessionId: string, event: SessionEvent, header?: BirthHeader): void;
	/** createdHeader is the header the plugin gave a session this process created. */
	createdHeader(sessionId: string): BirthHeader | undefined;
}

export class Sessions {
	private readonly logs = new Map<string, SessionLog>();
	private readonly issued = new Map<string, Issuers>();
	/** Sessions whose turn the plugin ended (a continuation): later calls are stopped quietly. */
	readonly ended = new Set<string>();
	private idleOf: (sessionId: string) => boolean = () => true;
	/** The ctx of the session pi shows, for what the plugin pushes (remote/event). */
	private shown: { sessionId: string; ctx: ExtensionContext } | undefined;
	private readonly deps: SessionsDeps;

	constructor(deps: SessionsDeps) {
		this.deps = deps;
	}

	/** log is the SessionLog of ctx's current session, made on first use; ctx becomes the one shown. */
	log(ctx: ExtensionContext): SessionLog {
		const sm = ctx.sessionManager;
		const id = sm.getSessionId();
		let log = this.logs.get(id);
		if (!log) {
			const entries = () => sm.getEntries() as Entry[];
			let seeded = this.deps.createdHeader(id);
			if (!seeded) {
				const kept = entries().find((e) => e.type === "custom" && e.customType === HEADER_ENTRY);
				if (kept) seeded = kept.data as BirthHeader;
			}
			log = new SessionLog(id, birthHeader(sm.getHeader(), seeded), { entries, append: (t, d) => this.deps.append(t, d) }, (sid, ev, header) =>
				this.deps.send(sid, ev, header),
			);
			this.logs.set(id, log);
		}
		this.idleOf = (sid) => sid !== id || ctx.isIdle();
		this.shown = { sessionId: id, ctx };
		return log;
	}

	/** issuers is the issuance record of ctx's current session, read from its entries on first use. */
	issuers(ctx: ExtensionContext): Issuers {
		const sm = ctx.sessionManager;
		const id = sm.getSessionId();
		let is = this.issued.get(id);
		if (!is) {
			is = new Issuers(sm.getEntries() as Entry[], (t, d) => this.deps.append(t, d));
			this.issued.set(id, is);
		}
		return is;
	}

	/** known is the log of a session this process has seen, for agents/get and session/read. */
	known(sessionId: string): SessionLog | undefined {
		return this.logs.get(sessionId);
	}

	isIdle(sessionId: string): boolean {
		return this.idleOf(sessionId);
	}

	/** current is the session pi shows and its ctx, if a handler has seen one. */
	current(): { sessionId: string; ctx: ExtensionContext } | undefined {
		return this.shown;
	}

	/** resend has every log send its header again with its next event (a restarted plugin). */
	resend(): void {
		for (const log of this.logs.values()) log.resend();
	}
}

/**
 * recordSignatures records the reasoning items of an assistant message as
 * issued to account. pi keeps each OpenAI Responses reasoning item whole,
 * as JSON, in its thinking block's thinkingSignature: on pi 0.73, which has
 * no provider_stream_event, this is where issuance is read.
 */
export function recordSignatures(is: Issuers, m: PiMessage, account: string): void {
	if (!Array.isArray(m.content)) return;
	for (const b of m.content as { type: string; thinkingSignature?: unknown }[]) {
		if (b.type !== "thinking" || typeof b.thinkingSignature !== "string" || !b.thinkingSignature.startsWith("{")) continue;
		try {
			is.recordItem(JSON.parse(b.thinkingSignature), account);
		} catch {
			// not a reasoning item pi serialized: nothing issued to record
		}
	}
}
