// The extension's state and pi's lifecycle mapped onto the protocol. One
// plugin process serves the whole pi process; each pi session has its own
// SessionLog. Handlers read the session from the ctx they are given, so a
// session replaced by /new, /resume or a successor is followed.
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { accountDigest } from "./account.ts";
import { type BirthHeader, birthHeader, type PiMessage, type SessionEvent, SessionLog } from "./events.ts";
import { type Admission, admit, failure, filterDigest, filterPayload, type RequestRef, trace } from "./payload.ts";
import { PAYLOAD_PROVIDERS, type Started, start } from "./plugin.ts";
import { views } from "./remote.ts";
import { ClosedError, RPCError, type Peer } from "./rpc.ts";
import { Texts } from "./texts.ts";
import { Prompts } from "./ui.ts";

/** Prepared is a step's admission, sent at turn_start, or its cancellation. */
interface Prepared {
	turn: number;
	step: number;
	cancelled?: true;
	ref?: RequestRef;
	admission?: Promise<Admission | null>;
}

/** HEADER_ENTRY keeps the birth evidence the plugin gave a successor it created. */
export const HEADER_ENTRY = "continuity-header";

export class Extension {
	readonly texts = new Texts();
	readonly prompts: Prompts;
	plugin: Started | undefined;
	private starting: Promise<Started> | undefined;
	private readonly logs = new Map<string, SessionLog>();
	/** Headers of sessions this process created for the plugin (session/create). */
	readonly seeded = new Map<string, BirthHeader>();
	/** The request of each session's step in flight, for llm/response. */
	private readonly inFlight = new Map<string, RequestRef>();
	/** Each session's step being prepared at turn_start (prepare). */
	private readonly preparing = new Map<string, { turn: number; step: number; pending: Promise<Prepared | undefined> }>();
	/** Sessions whose turn the plugin ended (a continuation): later calls are stopped quietly. */
	readonly ended = new Set<string>();
	private requests = 0;
	private idleOf: (sessionId: string) => boolean = () => true;

	readonly pi: ExtensionAPI;
	private readonly hostVersion: string;
	private readonly serveHost: (peer: Peer, ext: Extension) => void;

	constructor(pi: ExtensionAPI, hostVersion: string, serveHost: (peer: Peer, ext: Extension) => void) {
		this.pi = pi;
		this.hostVersion = hostVersion;
		this.serveHost = serveHost;
		this.prompts = new Prompts(this);
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
		return log;
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
			this.log(ctx).startTurn();
			this.prompts.status(ctx);
		});
		pi.on("turn_start", async (_e, ctx) => {
			const log = this.log(ctx);
			const step = log.startStep();
			// pi may not wait for this handler before it builds the request,
			// so the request finds the preparation itself and awaits it.
			const pending = this.prepare(ctx);
			this.preparing.set(log.sessionId, { turn: log.turn, step, pending });
			try {
				if ((await pending)?.cancelled) ctx.abort();
			} catch {
				// The request reports what failed.
			}
		});
		pi.on("message_end", async (e, ctx) => {
			const m = e.message as PiMessage;
			const log = this.log(ctx);
			log.message(m);
			if (m.role === "assistant" && m.stopReason === "error" && m.errorMessage) await this.failed(ctx, log, m.errorMessage);
		});
		pi.on("turn_end", async (_e, ctx) => {
			this.log(ctx).endStep();
		});
		pi.on("agent_end", async (e, ctx) => {
			const log = this.log(ctx);
			log.endTurn(endReason(e.messages as PiMessage[]));
			this.inFlight.delete(log.sessionId);
			this.prompts.status(ctx, true);
		});
		pi.on("before_provider_request", async (e, ctx) => this.request(e.payload, ctx));
	}

	/**
	 * prepare runs at turn_start, before pi builds the request: the account
	 * check (which may pause the turn for a choice) and the admission. The
	 * admission is sent and not awaited here, so its round trip overlaps
	 * pi's own work on the request; before_provider_request awaits it.
	 */
	private async prepare(ctx: ExtensionContext): Promise<Prepared | undefined> {
		const model = ctx.model;
		if (!model || !PAYLOAD_PROVIDERS.includes(model.provider)) return undefined;
		const log = this.log(ctx);
		if (this.ended.has(log.sessionId)) return undefined;
		const { peer } = await this.connect();
		const turn = log.turn;
		const step = Math.max(log.step, 1);
		const accountId = await accountDigest(ctx.modelRegistry, model.provider);
		if (accountId && step === 1 && log.account && log.account !== accountId) {
			if ((await this.prompts.accountSwitch(ctx, peer, log.sessionId, accountId)) === "cancel") {
				return { cancelled: true, turn, step };
			}
		}
		if (accountId) log.selectAccount(accountId);
		const ref: RequestRef = {
			sessionId: log.sessionId,
			turn,
			step,
			requestId: `pi-${process.pid}-${++this.requests}`,
			provider: model.provider,
			model: model.id,
			accountId,
		};
		const admission = admit(peer, ref);
		admission.catch(() => {}); // awaited, and reported, by the request
		return { turn, step, ref, admission };
	}

	/**
	 * request handles before_provider_request: the step's prepared
	 * admission (or a fresh one, for a request turn_start did not prepare,
	 * such as a retry), then the filter. It returns the filtered body, or
	 * undefined to send pi's own.
	 */
	private async request(payload: unknown, ctx: ExtensionContext): Promise<unknown> {
		const model = ctx.model;
		if (!model || !PAYLOAD_PROVIDERS.includes(model.provider)) return undefined;
		const log = this.log(ctx);
		if (this.ended.has(log.sessionId)) {
			ctx.abort(); // the plugin ended this turn (the session continued in a successor)
			return undefined;
		}
		try {
			const step = Math.max(log.step, 1);
			const started = this.preparing.get(log.sessionId);
			this.preparing.delete(log.sessionId);
			let p = started && started.turn === log.turn && started.step === step ? await started.pending : undefined;
			if (!p) p = await this.prepare(ctx); // not prepared at turn_start: a retry, or a failed preparation
			if (!p) return undefined;
			if (p.cancelled || !p.ref || !p.admission) {
				ctx.abort(); // Cancel at the account-switch pause
				return undefined;
			}
			const { peer } = await this.connect();
			const ref = p.ref;
			const admission = await p.admission;
			this.inFlight.set(log.sessionId, ref);
			if (!admission) return undefined;
			if (payloadForm() === "digest") {
				const { body, res } = await filterDigest(peer, ref, payload, ctx.signal);
				trace(ref, res, body ?? payload);
				return body;
			}
			const res = await filterPayload(peer, ref, payload, ctx.signal);
			trace(ref, res);
			if (res.outcome === "filtered") return res.payload;
			return undefined;
		} catch (err) {
			ctx.abort();
			this.prompts.diagnostic(ctx, err);
			return undefined;
		}
	}

	/** failed reports a failed request (llm/response) and shows what the plugin offers. */
	private async failed(ctx: ExtensionContext, log: SessionLog, errorMessage: string): Promise<void> {
		const ref = this.inFlight.get(log.sessionId);
		const peer = this.plugin?.peer;
		if (!ref || !peer || peer.isClosed) return;
		const { status, errorBody } = failure(errorMessage);
		peer.notify("llm/response", { requestId: ref.requestId, status, errorBody });
		await this.guard(ctx, async () => {
			const { notices } = await views.notices(peer, log.sessionId);
			const n = notices.find((x) => x.kind === "replayRejected" && x.requestId === ref.requestId);
			if (n) await this.prompts.rejection(ctx, peer, log.sessionId, n);
		});
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

/** The DSH turn/end reason of a finished pi run. */
function endReason(messages: PiMessage[] | undefined): Record<string, unknown> {
	const last = [...(messages ?? [])].reverse().find((m) => m.role === "assistant");
	switch (last?.stopReason) {
		case "aborted":
			return { kind: "aborted", reason: { kind: "user" } };
		case "error":
			return { kind: "error", error: { message: "the provider request failed" } };
		case "length":
			return { kind: "max-tokens" };
		default:
			return { kind: "completed" };
	}
}

/**
 * payloadForm is how bodies go to the plugin: "digest" (the default: only
 * per-item digests cross the pipe, the body stays pi's object) or "body"
 * (the whole body, and the plugin's bytes come back), from
 * CONTINUITY_PAYLOAD_FORM.
 */
export function payloadForm(env: NodeJS.ProcessEnv = process.env): "digest" | "body" {
	return env.CONTINUITY_PAYLOAD_FORM === "body" ? "body" : "digest";
}


/** diagnosticOf names an error for the user: the plugin's code, else its kind. */
export function diagnosticOf(err: unknown): { code: string; message: string } {
	if (err instanceof RPCError) return { code: err.diagnostic || `JSON-RPC ${err.code}`, message: err.message };
	if (err instanceof ClosedError) return { code: "CONTINUITY_PLUGIN_UNAVAILABLE", message: err.message };
	const e = err as Error;
	return { code: e?.name === "BinaryNotFoundError" ? "CONTINUITY_PLUGIN_UNAVAILABLE" : "CONTINUITY_EXTENSION_ERROR", message: e?.message ?? String(err) };
}
