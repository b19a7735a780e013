// pi's lifecycle as DSH session events (format 4, PROTOCOL §4): a prompt is
// a turn (agent_start … agent_end), a model call with its tools a step
// (turn_start … turn_end). Every event is also kept in pi's own session file
// as a custom entry, so seq stays dense across runs of `pi -c` and
// session/read answers from the session itself.
import { randomUUID } from "node:crypto";

export const EVENT_ENTRY = "continuity-event";

/** How an event changes the model-visible surface: appended, or replacing a range of earlier events (format 4). */
export type SurfaceOp = "append" | { op: "replace"; startSeq: number; endSeq: number };

export interface SessionEvent {
	type: string;
	seq: number;
	time: number;
	data: Record<string, unknown>;
	surfaceOp?: SurfaceOp;
	sourceEventSeqs?: number[];
}

/** DSH's SessionHeader as far as pi's header gives it (birth evidence). */
export interface BirthHeader {
	createdAt: number;
	isSeeded: boolean;
	parentSession?: string;
	origin?: string;
}

interface Entry {
	type: string;
	customType?: string;
	data?: unknown;
}

/** What the log needs from pi: its entries and a way to append one. */
export interface EntryStore {
	entries(): Entry[];
	append(customType: string, data: unknown): void;
}

export type Send = (sessionId: string, event: SessionEvent, header?: BirthHeader) => void;

/** pi message content blocks, as far as the mapping reads them. */
type PiBlock =
	| { type: "text"; text: string }
	| { type: "thinking"; thinking: string }
	| { type: "toolCall"; id: string; name: string; arguments: unknown }
	| { type: "image"; data?: string; mimeType?: string };

export interface PiMessage {
	role: string;
	content?: string | PiBlock[];
	provider?: string;
	model?: string;
	usage?: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number };
	stopReason?: string;
	errorMessage?: string;
	toolCallId?: string;
	toolName?: string;
	isError?: boolean;
}

/** blocks maps pi content to DSH ContentBlocks (text, reasoning, tool-call). */
export function blocks(content: PiMessage["content"]): Record<string, unknown>[] {
	if (content === undefined) return [];
	if (typeof content === "string") return [{ type: "text", text: content }];
	const out: Record<string, unknown>[] = [];
	for (const b of content) {
		if (b.type === "text") out.push({ type: "text", text: b.text });
		else if (b.type === "thinking") out.push({ type: "reasoning", text: b.thinking });
		else if (b.type === "toolCall") out.push({ type: "tool-call", id: b.id, name: b.name, arguments: JSON.stringify(b.arguments ?? {}) });
		else if (b.type === "image") out.push({ type: "image", attachment: { mimeType: b.mimeType ?? "" } });
	}
	return out;
}

export class SessionLog {
	private events: SessionEvent[] = [];
	private headerSent = false;
	/** The turn in progress (0 before the first). */
	turn = 0;
	/** The step in progress within the turn (0 before the first). */
	step = 0;
	turnOpen = false;
	/** The account digest last announced with account/selected. */
	account: string | undefined;
	/** The session's open compaction bracket (compaction.ts): its id and the last event pi's summary replaces. */
	compaction: { compactionId: string; endSeq: number } | undefined;
	/** The seq of each tool call's tool/call event, for its result's sourceEventSeqs. */
	private readonly callSeqs = new Map<string, number>();

	readonly sessionId: string;
	readonly header: BirthHeader;
	private readonly store: EntryStore;
	private readonly send: Send;

	constructor(sessionId: string, header: BirthHeader, store: EntryStore, send: Send) {
		this.sessionId = sessionId;
		this.header = header;
		this.store = store;
		this.send = send;
		for (const e of store.entries()) {
			if (e.type !== "custom" || e.customType !== EVENT_ENTRY) continue;
			const ev = e.data as SessionEvent;
			this.events.push(ev);
			if (ev.type === "turn/start") {
				this.turn = Number(ev.data.turn);
				this.turnOpen = true;
			} else if (ev.type === "turn/end") this.turnOpen = false;
			else if (ev.type === "account/selected") this.account = String(ev.data.accountId);
		}
	}

	/** read answers session/read: the events with fromSeq ≤ seq ≤ toSeq. */
	read(fromSeq: number, toSeq: number): { events: SessionEvent[]; complete: boolean } {
		const events = this.events.filter((e) => e.seq >= fromSeq && e.seq <= toSeq);
		return { events, complete: toSeq >= this.events.length - 1 };
	}

	emit(type: string, data: Record<string, unknown>, surfaceOp?: SurfaceOp, sources?: number[]): SessionEvent {
		const ev: SessionEvent = { type, seq: this.events.length, time: Date.now(), data };
		if (surfaceOp) ev.surfaceOp = surfaceOp;
		if (sources) ev.sourceEventSeqs = sources;
		this.events.push(ev);
		this.store.append(EVENT_ENTRY, ev);
		// The header goes with the first event this process sends, so the
		// plugin has birth evidence without asking (it may still agents/get).
		const header = this.headerSent ? undefined : this.header;
		this.headerSent = true;
		this.send(this.sessionId, ev, header);
		return ev;
	}

	/** Re-announce the header on the next event (a restarted plugin). */
	resend(): void {
		this.headerSent = false;
	}

	startTurn(): number {
		if (this.turnOpen) this.endTurn({ kind: "interrupted" });
		this.turn++;
		this.step = 0;
		this.turnOpen = true;
		this.emit("turn/start", { turn: this.turn });
		return this.turn;
	}

	endTurn(reason: Record<string, unknown>): void {
		if (!this.turnOpen) return;
		this.turnOpen = false;
		this.emit("turn/end", { turn: this.turn, reason });
	}

	startStep(): number {
		this.step++;
		this.emit("step/start", { turn: this.turn, step: this.step });
		return this.step;
	}

	endStep(): void {
		this.emit("step/end", { turn: this.turn, step: this.step });
	}

	selectAccount(accountId: string): void {
		if (this.account === accountId) return;
		this.account = accountId;
		this.emit("account/selected", { accountId });
	}

	/** message maps one finished pi message to its DSH event. */
	message(m: PiMessage): void {
		const id = randomUUID();
		if (m.role === "user") {
			this.emit("user/message", { id, role: "user", content: blocks(m.content), source: { kind: "user" } }, "append");
		} else if (m.role === "assistant") {
			const content = blocks(m.content);
			const data: Record<string, unknown> = {
				turn: this.turn,
				step: this.step,
				message: { id, role: "assistant", content, source: { kind: "model", provider: m.provider ?? "", model: m.model ?? "" } },
			};
			if (m.usage) {
				data.usage = {
					inputTokens: m.usage.input ?? 0,
					outputTokens: m.usage.output ?? 0,
					cacheReadTokens: m.usage.cacheRead ?? 0,
					cacheWriteTokens: m.usage.cacheWrite ?? 0,
				};
			}
			this.emit("assistant/message", data, "append");
			for (const b of content) {
				if (b.type === "tool-call") {
					const ev = this.emit("tool/call", { turn: this.turn, step: this.step, callId: b.id, name: b.name, arguments: b.arguments });
					this.callSeqs.set(String(b.id), ev.seq);
				}
			}
		} else if (m.role === "toolResult") {
			const callId = m.toolCallId ?? "";
			this.emit(
				"tool/result",
				{
					turn: this.turn,
					step: this.step,
					message: { role: "tool", source: { kind: "tool", callId }, toolCallId: callId, content: blocks(m.content), isError: m.isError === true },
				},
				"append",
				this.callSeqs.has(callId) ? [this.callSeqs.get(callId) as number] : undefined,
			);
		}
	}
}

/** birthHeader reads pi's session header as DSH birth evidence. */
export function birthHeader(h: { timestamp?: string; parentSession?: string } | null | undefined, seeded?: BirthHeader): BirthHeader {
	if (seeded) return seeded;
	const createdAt = h?.timestamp ? Date.parse(h.timestamp) : Number.NaN;
	const out: BirthHeader = {
		createdAt: Number.isFinite(createdAt) ? createdAt : 0,
		// A session with a parent is a fork or a clone of another's history.
		isSeeded: Boolean(h?.parentSession),
	};
	if (h?.parentSession) out.parentSession = h.parentSession;
	return out;
}
