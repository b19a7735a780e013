// The extension as one object: it builds its parts, each given only what
// it uses, and maps pi's lifecycle onto them. One plugin process serves the
// whole pi process (connection.ts); each pi session has its own SessionLog
// (sessions.ts). This is the root of the import tree: no module it builds
// imports it (test/imports.test.ts holds that).
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import type { CommandDeps } from "./commands.ts";
import { compacted, compactionFailed, replacedThrough, settleStale, startCompaction } from "./compaction.ts";
import { Connection } from "./connection.ts";
import { CreatedSessions } from "./created.ts";
import type { BirthHeader, PiMessage, SessionEvent } from "./events.ts";
import { serveHost } from "./host.ts";
import { managedCompaction } from "./managed.ts";
import { endReason } from "./outcomes.ts";
import { type Started, start } from "./plugin.ts";
import type { Rule } from "./provenance.ts";
import { COMMAND_MESSAGE } from "./printmode.ts";
import { showPushed } from "./pushed.ts";
import { StepRequests } from "./requests.ts";
import { ruleReader } from "./rule.ts";
import { recordSignatures, Sessions } from "./sessions.ts";
import { Texts } from "./texts.ts";
import type { SuccessorDeps } from "./successor.ts";
import { Prompts } from "./ui.ts";

export class Extension {
	private readonly pi: ExtensionAPI;
	readonly texts = new Texts();
	/** Sessions this process created for the plugin (session/create). */
	private readonly successors = new CreatedSessions();
	/** Messages the return offer takes to a continuation, until its editor shows them (places.ts). */
	private readonly carried = new Map<string, string>();
	private readonly sessions: Sessions;
	private readonly prompts: Prompts;
	private readonly requests: StepRequests;
	private readonly connection: Connection;
	/** rule is the person's omission rule; an unreadable setting is said once and the turn rule applies. */
	private readonly rule: () => Rule;

	constructor(pi: ExtensionAPI, hostVersion: string) {
		this.pi = pi;
		const texts = this.texts;
		const successors = this.successors;
		this.sessions = new Sessions({
			append: (t, d) => pi.appendEntry(t, d),
			send: (sid, ev, header) => this.send(sid, ev, header),
			createdHeader: (sid) => successors.header(sid),
		});
		const sessions = this.sessions;
		const host = {
			known: (sid: string) => sessions.known(sid),
			isIdle: (sid: string) => sessions.isIdle(sid),
			created: successors,
			queue: (text: string) => pi.sendUserMessage(text, { deliverAs: "followUp", expandPromptTemplates: true } as never),
			remoteEvent: (event: string, args: unknown) =>
				showPushed({ texts, current: () => sessions.current(), say: (ctx, s) => this.prompts.say(ctx, s) }, event, args),
		};
		this.connection = new Connection(
			() => start(hostVersion, (peer) => serveHost(peer, host)),
			() => sessions.resend(),
		);
		const running = () => this.connection.running();
		const connect = () => this.connect();
		this.prompts = new Prompts(texts, running);
		this.rule = ruleReader(() => process.stderr.write(`continuity: ${texts.t("rule.unreadable")}\n`));
		this.requests = new StepRequests({ texts, sessions, prompts: this.prompts, connect, running, rule: this.rule });
	}

	/** connect starts the plugin once; a failure is thrown to the caller and retried on next use. */
	connect(): Promise<Started> {
		return this.connection.connect();
	}

	stop(): Promise<void> {
		return this.connection.stop();
	}

	/** commandDeps is what /continuity uses (commands.ts). */
	commandDeps(): CommandDeps {
		const requests = this.requests;
		return {
			pi: this.pi,
			texts: this.texts,
			prompts: this.prompts,
			connect: () => this.connect(),
			track: (ctx) => void this.sessions.log(ctx),
			rule: this.rule,
			lastByProvenance: (sid) => requests.lastByProvenance(sid),
			successor: this.successorDeps(),
		};
	}

	/** successorDeps is what the continuation tools and the successor command use (successor.ts). */
	successorDeps(): SuccessorDeps {
		const sessions = this.sessions;
		return {
			pi: this.pi,
			texts: this.texts,
			prompts: this.prompts,
			successors: this.successors,
			connect: () => this.connect(),
			log: (ctx) => sessions.log(ctx),
			ended: sessions.ended,
			carried: this.carried,
		};
	}

	private send(sessionId: string, event: SessionEvent, header?: BirthHeader): void {
		const peer = this.connection.running();
		if (!peer) return;
		const params: Record<string, unknown> = { sessionId, event };
		if (header) params.header = header;
		peer.notify("session/event", params);
	}

	register(): void {
		const pi = this.pi;
		const sessions = this.sessions;
		pi.on("session_start", async (_e, ctx) => {
			await this.prompts.guard(ctx, () => this.connect());
			sessions.log(ctx);
			this.prompts.status(ctx);
		});
		pi.on("session_shutdown", async () => {
			await this.stop();
		});
		pi.on("agent_start", async (_e, ctx) => {
			sessions.ended.delete(ctx.sessionManager.getSessionId());
			const log = sessions.log(ctx);
			settleStale(log);
			log.startTurn();
			this.prompts.status(ctx);
		});
		pi.on("turn_start", async (_e, ctx) => {
			const log = sessions.log(ctx);
			const step = log.startStep();
			await this.requests.stepStarted(ctx, log, step);
		});
		pi.on("message_end", async (e, ctx) => {
			const m = e.message as PiMessage & { customType?: string };
			if (m.role === "custom" && m.customType === COMMAND_MESSAGE) return;
			const log = sessions.log(ctx);
			log.message(m);
			if (m.role !== "assistant") return;
			this.requests.answered(log.sessionId, m.stopReason !== "error" && m.stopReason !== "aborted");
			if (log.account) recordSignatures(sessions.issuers(ctx), m, log.account);
			if (m.stopReason === "error" && m.errorMessage) await this.requests.failed(ctx, log, m.errorMessage);
		});
		// pi 1.x: every parsed stream event of a provider response, awaited in
		// order. A finished reasoning item is recorded as issued to the
		// account the session's request went out with.
		on(pi, "provider_stream_event", async (e: { data?: unknown }, ctx: ExtensionContext) => {
			const d = e.data as { type?: unknown; item?: unknown } | null;
			if (d?.type !== "response.output_item.done") return;
			const account = sessions.log(ctx).account;
			if (account) sessions.issuers(ctx).recordItem(d.item, account);
		});
		// pi 1.x: before each prompt-cache refresh (requests.ts, warming).
		on(pi, "cache_warming_decision", async (_e: unknown, ctx: ExtensionContext) => this.requests.warming(ctx.sessionManager.getSessionId()));
		// The messages print mode's commands leave (printmode.ts) never reach the model.
		pi.on("context", async (e) => {
			const kept = e.messages.filter((m) => !((m as { role: string; customType?: string }).role === "custom" && (m as { customType?: string }).customType === COMMAND_MESSAGE));
			return kept.length === e.messages.length ? undefined : { messages: kept };
		});
		pi.on("turn_end", async (_e, ctx) => {
			sessions.log(ctx).endStep();
		});
		pi.on("agent_end", async (e, ctx) => {
			const log = sessions.log(ctx);
			log.endTurn(endReason(e.messages as PiMessage[]));
			this.requests.turnEnded(log.sessionId);
			this.prompts.status(ctx, true);
		});
		pi.on("before_provider_request", async (e, ctx) => this.requests.request(e.payload, ctx));
		pi.on("session_before_compact", async (e, ctx) => {
			const log = sessions.log(ctx);
			const seq = startCompaction(log, replacedThrough(e.branchEntries, e.preparation.firstKeptEntryId));
			return managedCompaction({ texts: this.texts, connect: () => this.connect(), say: (c, s, level) => this.prompts.say(c, s, level) }, ctx, log.sessionId, seq, e.preparation);
		});
		pi.on("session_compact", async (e, ctx) => {
			compacted(sessions.log(ctx), e.compactionEntry.summary);
		});
		// pi 1.x only; on 0.73 an unreported bracket is settled at the next turn or compaction.
		on(pi, "session_compact_failed", async (e: { aborted?: boolean; errorMessage?: string }, ctx: ExtensionContext) =>
			compactionFailed(sessions.log(ctx), e.aborted === true, e.errorMessage),
		);
	}
}

/** on registers a handler for an event only one pi line has (0.73's types do not name it). */
function on<E>(pi: ExtensionAPI, event: string, handler: (e: E, ctx: ExtensionContext) => Promise<unknown>): void {
	(pi.on as unknown as (event: string, handler: (e: E, ctx: ExtensionContext) => Promise<unknown>) => void)(event, handler);
}
