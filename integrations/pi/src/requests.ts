// One provider request of pi, from turn_start to its answer: the
// preparation at turn_start (prepare.ts), the filter at the payload hook —
// the plugin's (digest or body form) or the provenance rule's
// (byissuer.ts), or a cache-warming refresh's (warming.ts) — and a failed
// answer reported back (llm/response) with what the plugin then offers.
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import { accountDigest } from "./account.ts";
import { filterByIssuer } from "./byissuer.ts";
import { describeAhead, filterDigest } from "./digest.ts";
import type { SessionLog } from "./events.ts";
import { isDelta } from "./input.ts";
import { payloadForm } from "./outcomes.ts";
import { failure, filterPayload, type RequestRef, trace } from "./payload.ts";
import { PAYLOAD_PROVIDERS } from "./plugin.ts";
import { type PrepareDeps, Preparations } from "./prepare.ts";
import type { Omission, Rule } from "./provenance.ts";
import { type Sent, sentOf, withoutReasoning } from "./refresh.ts";
import { views } from "./remote.ts";
import type { Peer } from "./rpc.ts";
import type { Sessions } from "./sessions.ts";
import type { Texts } from "./texts.ts";
import type { Prompts } from "./ui.ts";
import { refreshBody } from "./warming.ts";

/** What a request's handling needs of the extension. */
export interface RequestDeps extends PrepareDeps {
	texts: Texts;
	sessions: Pick<Sessions, "log" | "ended" | "issuers">;
	prompts: Pick<Prompts, "accountSwitch" | "diagnostic" | "rejection" | "guard">;
	/** running is the peer of the plugin if it runs now. */
	running(): Peer | undefined;
	rule(): Rule;
}

export class StepRequests {
	private readonly deps: RequestDeps;
	private readonly preparations: Preparations;
	/** The request of each session's step in flight, for llm/response. */
	private readonly inFlight = new Map<string, RequestRef>();
	/** The sessions whose last admission was enabled (describeAhead). */
	private readonly enabled = new Set<string>();
	/** What each session's last real request sent, for the refreshes that repeat it. */
	private readonly sent = new Map<string, Sent>();
	/** What the provenance rule omitted from each session's last request, for /continuity. */
	private readonly byProvenance = new Map<string, Omission["omitted"]>();

	constructor(deps: RequestDeps) {
		this.deps = deps;
		this.preparations = new Preparations({ sessions: deps.sessions, prompts: deps.prompts, connect: deps.connect });
	}

	/**
	 * stepStarted prepares the step's request (turn_start). pi may not wait
	 * for this handler before it builds the request, so the request finds
	 * the preparation itself and awaits it.
	 */
	async stepStarted(ctx: ExtensionContext, log: SessionLog, step: number): Promise<void> {
		try {
			if ((await this.preparations.start(ctx, log, step))?.cancelled) ctx.abort();
		} catch {
			// The request reports what failed.
		}
	}

	/** turnEnded forgets the session's last request (agent_end). */
	turnEnded(sessionId: string): void {
		this.inFlight.delete(sessionId);
		this.preparations.forget(sessionId);
	}

	/** lastByProvenance is what the provenance rule omitted from the session's last request. */
	lastByProvenance(sessionId: string): Omission["omitted"] | undefined {
		return this.byProvenance.get(sessionId);
	}

	/**
	 * request handles before_provider_request: the step's prepared
	 * admission (or a fresh one, for a request turn_start did not prepare,
	 * such as a retry), then the filter. It returns the filtered body, or
	 * undefined to send pi's own. It never throws: pi 1.x sends its own
	 * payload after a throwing handler, so every failure stops the request
	 * here (stop).
	 */
	async request(payload: unknown, ctx: ExtensionContext): Promise<unknown> {
		let log: SessionLog | undefined;
		try {
			const model = ctx.model;
			if (!model || !PAYLOAD_PROVIDERS.includes(model.provider)) return undefined;
			log = this.deps.sessions.log(ctx);
			// pi 1.x keeps prompt caches warm by repeating the session's last
			// request between runs (cache warming): no turn is open and the
			// agent is idle. Such a refresh is not a turn's request; it gets
			// the last request's omissions, never the plugin's turn check.
			if (!log.turnOpen && ctx.isIdle()) return await this.refresh(ctx, log, model.provider, payload);
			return await this.filter(payload, ctx, log);
		} catch (err) {
			return this.stop(ctx, log, payload, err);
		}
	}

	/**
	 * stop ends a request that must not go as pi built it: ctx.abort()
	 * aborts the run's signal, so the provider does not send it, and the
	 * named diagnostic says so. The body returned carries no encrypted
	 * reasoning at all, so that nothing foreign could ride even on a
	 * request the abort did not reach.
	 */
	private stop(ctx: ExtensionContext, log: SessionLog | undefined, payload: unknown, err: unknown): unknown {
		if (log) this.sent.set(log.sessionId, { omitted: new Set(), account: log.account, failed: true });
		try {
			ctx.abort();
		} catch {
			// a stale ctx: the run it belonged to is gone already
		}
		try {
			this.deps.prompts.diagnostic(ctx, err);
		} catch {
			process.stderr.write(`continuity: ${(err as Error)?.message ?? String(err)}\n`);
		}
		return withoutReasoning(payload);
	}

	private async filter(payload: unknown, ctx: ExtensionContext, log: SessionLog): Promise<unknown> {
		if (this.deps.sessions.ended.has(log.sessionId)) {
			ctx.abort(); // the plugin ended this turn (the session continued in a successor)
			return withoutReasoning(payload);
		}
		const p = await this.preparations.take(ctx, log);
		if (!p) return undefined;
		if (p.cancelled || !p.ref || !p.admission) {
			ctx.abort(); // Cancel at the account-switch pause
			this.sent.set(log.sessionId, { omitted: new Set(), account: log.account, failed: true });
			return withoutReasoning(payload);
		}
		const { peer } = await this.deps.connect();
		const ref = p.ref;
		const digest = payloadForm() === "digest";
		const rule = this.deps.rule();
		const early = digest && rule === "turn" ? describeAhead(p.admission, payload, this.enabled.has(log.sessionId)) : undefined;
		const admission = await p.admission.result;
		this.inFlight.set(log.sessionId, ref);
		if (admission?.enabled) this.enabled.add(log.sessionId);
		else this.enabled.delete(log.sessionId);
		this.byProvenance.delete(log.sessionId);
		// pi 1.6 hands the hook the whole body and builds openai-codex's
		// WebSocket delta afterwards, from the filtered body, on the
		// account's own connection, so nothing the filter left out rides on
		// a previous response. A body that is a delta already cannot be
		// checked against what that response holds: it is not sent.
		if (admission?.enabled && isDelta(payload)) throw new Error(this.deps.texts.t("payload.delta"));
		let body: unknown;
		if (!admission) body = undefined;
		else if (admission.enabled && rule === "provenance") {
			const r = filterByIssuer(this.deps.sessions.issuers(ctx), ref, payload);
			if (r.omitted) this.byProvenance.set(ref.sessionId, r.omitted);
			body = r.body;
		} else if (digest) {
			const cutBody = await filterDigest(peer, ref, payload, early, ctx.signal);
			trace(ref, cutBody.res, cutBody.body ?? payload);
			body = cutBody.body;
		} else {
			const res = await filterPayload(peer, ref, payload, ctx.signal);
			trace(ref, res);
			body = res.outcome === "filtered" ? res.payload : undefined;
		}
		this.sent.set(log.sessionId, sentOf(payload, body, ref.accountId));
		return body;
	}

	/** refresh filters a cache-warming request (warming.ts). */
	private refresh(ctx: ExtensionContext, log: SessionLog, provider: string, payload: unknown): Promise<unknown> {
		return refreshBody(payload, {
			last: () => this.sent.get(log.sessionId),
			issuers: this.deps.sessions.issuers(ctx),
			account: () => accountDigest(ctx.modelRegistry, provider),
			ref: (accountId) => ({ sessionId: log.sessionId, turn: log.turn, step: log.step, requestId: this.preparations.requestId("warm"), provider, model: ctx.model?.id ?? "", accountId }),
		});
	}

	/**
	 * warming answers cache_warming_decision: a refresh repeats the last
	 * request, so when that request was stopped or rejected, warming stops
	 * instead of repeating it.
	 */
	warming(sessionId: string): { action: "stop" } | undefined {
		return this.sent.get(sessionId)?.failed ? { action: "stop" } : undefined;
	}

	/** answered notes how the session's last request ended (message_end of an assistant message). */
	answered(sessionId: string, ok: boolean): void {
		const s = this.sent.get(sessionId);
		if (s) s.failed = !ok;
	}

	/** failed reports a failed request (llm/response) and shows what the plugin offers. */
	async failed(ctx: ExtensionContext, log: SessionLog, errorMessage: string): Promise<void> {
		const ref = this.inFlight.get(log.sessionId);
		const peer = this.deps.running();
		if (!ref || !peer) return;
		const { status, errorBody } = failure(errorMessage);
		peer.notify("llm/response", { requestId: ref.requestId, status, errorBody });
		await this.deps.prompts.guard(ctx, async () => {
			const { notices } = await views.notices(peer, log.sessionId);
			const n = notices.find((x) => x.kind === "replayRejected" && x.requestId === ref.requestId);
			if (n) await this.deps.prompts.rejection(ctx, peer, log.sessionId, n);
		});
	}
}
