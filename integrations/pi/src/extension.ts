// The extension's state and pi's lifecycle mapped onto the protocol. One
// plugin process serves the whole pi process; each pi session has its own
// SessionLog. Handlers read the session from the ctx they are given, so a
// session replaced by /new, /resume or a successor is followed.
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { compacted, compactionFailed, replacedThrough, settleStale, startCompaction } from "./compaction.ts";
import { type BirthHeader, birthHeader, type PiMessage, type SessionEvent, SessionLog } from "./events.ts";
import { endReason } from "./outcomes.ts";
import { type Started, start } from "./plugin.ts";
import { StepRequests } from "./requests.ts";
import type { Peer } from "./rpc.ts";
import { Texts } from "./texts.ts";
import { BOUNDARY_STATUS, type BoundaryEvent, footer } from "./boundary.ts";
import { managedCompaction } from "./managed.ts";
import { COMMAND_MESSAGE } from "./printmode.ts";
import type { Notice } from "./remote.ts";
import { Issuers, type Rule } from "./provenance.ts";
import { readRule } from "./rule.ts";
import { Prompts } from "./ui.ts";

/** HEADER_ENTRY keeps the birth evidence the plugin gave a successor it created. */
export const HEADER_ENTRY = "continuity-header";

/** NOTICE_STATUS is the footer slot of what the plugin last said about a request. */
export const NOTICE_STATUS = "continuity-notice";

export class Extension {
	readonly texts = new Texts();
	readonly prompts: Prompts;
	readonly requests: StepRequests;
	plugin: Started | undefined;
	private starting: Promise<Started> | undefined;
	private readonly logs = new Map<string, SessionLog>();
	private readonly issued = new Map<string, Issuers>();
	/** ruleUnreadable: the unreadable rule setting was reported already (once per process). */
	private ruleUnreadable = false;
	/** Headers of sessions this process created for the plugin (session/create). */
	readonly seeded = new Map<string, BirthHeader>();
	/** Sessions whose turn the plugin ended (a continuation): later calls are stopped quietly. */
	readonly ended = new Set<string>();
	private idleOf: (sessionId: string) => boolean = () => true;
	/** The ctx of the session pi shows, for what the plugin pushes (remoteEvent). */
	private current: { sessionId: string; ctx: ExtensionContext } | undefined;

	readonly pi: ExtensionAPI;
	private readonly hostVersion: string;
	private readonly serveHost: (peer: Peer, ext: Extension) => void;

	constructor(pi: ExtensionAPI, hostVersion: string, serveHost: (peer: Peer, ext: Extension) => void) {
		this.pi = pi;
		this.hostVersion = hostVersion;
		this.serveHost = serveHost;
		this.prompts = new Prompts(this);
		this.requests = new StepRequests(this);
	}

	/** connect starts the plugin once; a failure is reported and retried on next use. */
	async connect(): Promise<Started> {
		if (this.plugin && !this.plugin.peer.isClosed) return this.plugin;
		if (!this.starting) {
			this.starting = start(this.hostVersion, (peer) => this.serveHost(peer, this)).then(
				(s) => {
					this.plugin = s;
					this.starting = undefined;
					for (const log of this.logs.values()) log.resend();
					return s;
				},
				(e) => {
					this.starting = undefined;
					throw e;
				},
			);
		}
		return this.starting;
	}

	async stop(): Promise<void> {
		const p = this.plugin;
		this.plugin = undefined;
		await p?.stop();
	}

	/** log is the SessionLog of ctx's current session, made on first use. */
	log(ctx: ExtensionContext): SessionLog {
		const sm = ctx.sessionManager;
		const id = sm.getSessionId();
		let log = this.logs.get(id);
		if (!log) {
			const entries = () => sm.getEntries() as { type: string; customType?: string; data?: unknown }[];
			let seeded = this.seeded.get(id);
			if (!seeded) {
				const kept = entries().find((e) => e.type === "custom" && e.customType === HEADER_ENTRY);
				if (kept) seeded = kept.data as BirthHeader;
			}
			log = new SessionLog(id, birthHeader(sm.getHeader(), seeded), { entries, append: (t, d) => this.pi.appendEntry(t, d) }, (sid, ev, header) =>
				this.send(sid, ev, header),
			);
			this.logs.set(id, log);
		}
		this.idleOf = (sid) => sid !== id || ctx.isIdle();
		this.current = { sessionId: id, ctx };
		return log;
	}

	/** issuers is the issuance record of ctx's current session, read from its entries on first use. */
	issuers(ctx: ExtensionContext): Issuers {
		const sm = ctx.sessionManager;
		const id = sm.getSessionId();
		let is = this.issued.get(id);
		if (!is) {
			is = new Issuers(sm.getEntries() as { type: string; customType?: string; data?: unknown }[], (t, d) => this.pi.appendEntry(t, d));
			this.issued.set(id, is);
		}
		return is;
	}

	/** rule is the person's omission rule; an unreadable setting is said once and the turn rule applies. */
	rule(): Rule {
		const r = readRule();
		if (r.unreadable && !this.ruleUnreadable) {
			this.ruleUnreadable = true;
			process.stderr.write(`continuity: ${this.texts.t("rule.unreadable")}\n`);
		}
		return r.rule;
	}

	/**
	 * remoteEvent shows what the plugin pushes (remote/event) about the
	 * session pi shows: a boundary decision marks the footer (a RESEED) or
	 * clears the mark; a notice goes where it belongs — what a request
	 * omitted into the footer, a compaction's state as a notification. The
	 * rejection offer, the account-switch pause, a request's diagnostic, the
	 * transition card and (with a UI) the return offer are shown by the
	 * flows that own them (requests.ts, ui.ts, places.ts), so their pushed
	 * copies are not said again.
	 */
	remoteEvent(event: string, args: unknown): void {
		const cur = this.current;
		const a = args as { agentId?: string } | undefined;
		if (!cur || !a || a.agentId !== cur.sessionId) return;
		try {
			const ctx = cur.ctx;
			if (event === "continuity.boundary") {
				if (ctx.hasUI) ctx.ui.setStatus(BOUNDARY_STATUS, footer(this.texts, a as BoundaryEvent));
				return;
			}
			// The transition card says where the session continued, and the
			// return offer asks before a message is sent (places.ts).
			if (event === "session.continued") return;
			if (event !== "continuity.notice") return;
			const n = a as Notice & { compaction?: unknown; continuation?: { title?: string } };
			const f = n.filtered ?? { items: 0, codeUnits: 0, strippedIds: 0 };
			const text = this.texts.t(n.textKey, { ...f, code: n.code ?? "", title: n.continuation?.title ?? "" });
			if (n.kind === "filtered" || n.kind === "native") {
				if (ctx.hasUI) ctx.ui.setStatus(NOTICE_STATUS, text);
			} else if (n.kind === "compaction" || (n.kind === "continuationReturn" && !ctx.hasUI)) this.prompts.say(ctx, text);
		} catch {
			// a stale ctx (pi replaced the session): the new one reads the views itself
		}
	}

	/** known is the log of a session this process has seen, for agents/get and session/read. */
	known(sessionId: string): SessionLog | undefined {
		return this.logs.get(sessionId);
	}

	isIdle(sessionId: string): boolean {
		return this.idleOf(sessionId);
	}

	private send(sessionId: string, event: SessionEvent, header?: BirthHeader): void {
		const peer = this.plugin?.peer;
		if (!peer || peer.isClosed) return;
		const params: Record<string, unknown> = { sessionId, event };
		if (header) params.header = header;
		peer.notify("session/event", params);
	}

	register(): void {
		const pi = this.pi;
		pi.on("session_start", async (_e, ctx) => {
			await this.guard(ctx, () => this.connect());
			this.log(ctx);
			this.prompts.status(ctx);
		});
		pi.on("session_shutdown", async () => {
			await this.stop();
		});
		pi.on("agent_start", async (_e, ctx) => {
			this.ended.delete(ctx.sessionManager.getSessionId());
			const log = this.log(ctx);
			settleStale(log);
			log.startTurn();
			this.prompts.status(ctx);
		});
		pi.on("turn_start", async (_e, ctx) => {
			const log = this.log(ctx);
			const step = log.startStep();
			await this.requests.stepStarted(ctx, log, step);
		});
		pi.on("message_end", async (e, ctx) => {
			const m = e.message as PiMessage & { customType?: string };
			if (m.role === "custom" && m.customType === COMMAND_MESSAGE) return;
			const log = this.log(ctx);
			log.message(m);
			if (m.role !== "assistant") return;
			this.requests.answered(log.sessionId, m.stopReason !== "error" && m.stopReason !== "aborted");
			if (log.account) recordSignatures(this.issuers(ctx), m, log.account);
			if (m.stopReason === "error" && m.errorMessage) await this.requests.failed(ctx, log, m.errorMessage);
		});
		// pi 1.x: every parsed stream event of a provider response, awaited in
		// order. A finished reasoning item is recorded as issued to the
		// account the session's request went out with.
		on(pi, "provider_stream_event", async (e: { data?: unknown }, ctx: ExtensionContext) => {
			const d = e.data as { type?: unknown; item?: unknown } | null;
			if (d?.type !== "response.output_item.done") return;
			const account = this.log(ctx).account;
			if (account) this.issuers(ctx).recordItem(d.item, account);
		});
		// pi 1.x: before each prompt-cache refresh (requests.ts, warming).
		on(pi, "cache_warming_decision", async (_e: unknown, ctx: ExtensionContext) => this.requests.warming(ctx.sessionManager.getSessionId()));
		// The messages print mode's commands leave (printmode.ts) never reach the model.
		pi.on("context", async (e) => {
			const kept = e.messages.filter((m) => !((m as { role: string; customType?: string }).role === "custom" && (m as { customType?: string }).customType === COMMAND_MESSAGE));
			return kept.length === e.messages.length ? undefined : { messages: kept };
		});
		pi.on("turn_end", async (_e, ctx) => {
			this.log(ctx).endStep();
		});
		pi.on("agent_end", async (e, ctx) => {
			const log = this.log(ctx);
			log.endTurn(endReason(e.messages as PiMessage[]));
			this.requests.turnEnded(log.sessionId);
			this.prompts.status(ctx, true);
		});
		pi.on("before_provider_request", async (e, ctx) => this.requests.request(e.payload, ctx));
		pi.on("session_before_compact", async (e, ctx) => {
			const log = this.log(ctx);
			const seq = startCompaction(log, replacedThrough(e.branchEntries, e.preparation.firstKeptEntryId));
			return managedCompaction(this, ctx, log.sessionId, seq, e.preparation);
		});
		pi.on("session_compact", async (e, ctx) => {
			compacted(this.log(ctx), e.compactionEntry.summary);
		});
		// pi 1.x only; on 0.73 an unreported bracket is settled at the next turn or compaction.
		on(pi, "session_compact_failed", async (e: { aborted?: boolean; errorMessage?: string }, ctx: ExtensionContext) =>
			compactionFailed(this.log(ctx), e.aborted === true, e.errorMessage),
		);
	}

	/** guard runs f and shows its error instead of letting pi swallow it. */
	async guard<T>(ctx: ExtensionContext, f: () => Promise<T>): Promise<T | undefined> {
		try {
			return await f();
		} catch (err) {
			this.prompts.diagnostic(ctx, err);
			return undefined;
		}
	}
}

/** on registers a handler for an event only one pi line has (0.73's types do not name it). */
function on<E>(pi: ExtensionAPI, event: string, handler: (e: E, ctx: ExtensionContext) => Promise<unknown>): void {
	(pi.on as unknown as (event: string, handler: (e: E, ctx: ExtensionContext) => Promise<unknown>) => void)(event, handler);
}

/**
 * recordSignatures records the reasoning items of an assistant message as
 * issued to account. pi keeps each OpenAI Responses reasoning item whole,
 * as JSON, in its thinking block's thinkingSignature: on pi 0.73, which has
 * no provider_stream_event, this is where issuance is read.
 */
function recordSignatures(is: Issuers, m: PiMessage, account: string): void {
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
