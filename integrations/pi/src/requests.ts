// One provider request of pi, from turn_start to its answer: the account
// check and admission prepared when the step starts, the filter at the
// payload hook, and a failed answer reported back (llm/response) with
// what the plugin then offers.
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import { accountDigest } from "./account.ts";
import type { SessionLog } from "./events.ts";
import type { Extension } from "./extension.ts";
import { payloadForm } from "./outcomes.ts";
import { cut, describeAhead, filterDigest } from "./digest.ts";
import { failure, filterPayload, type PendingAdmission, type RequestRef, sendAdmission, trace } from "./payload.ts";
import { PAYLOAD_PROVIDERS } from "./plugin.ts";
import { type Omission, omission } from "./provenance.ts";
import { views } from "./remote.ts";
import { refreshOf, type Sent, sentOf, withoutReasoning } from "./refresh.ts";

type Item = Record<string, unknown>;

/** Prepared is a step's admission, sent at turn_start, or its cancellation. */
interface Prepared {
	turn: number;
	step: number;
	cancelled?: true;
	ref?: RequestRef;
	admission?: PendingAdmission;
}

export class StepRequests {
	private readonly ext: Extension;
	/** Each session's step being prepared at turn_start (prepare). */
	private readonly preparing = new Map<string, { turn: number; step: number; pending: Promise<Prepared | undefined> }>();
	/** The request of each session's step in flight, for llm/response. */
	private readonly inFlight = new Map<string, RequestRef>();
	/** The sessions whose last admission was enabled (describeAhead). */
	private readonly enabled = new Set<string>();
	/** What each session's last real request sent, for the refreshes that repeat it. */
	private readonly sent = new Map<string, Sent>();
	/** What the provenance rule omitted from each session's last request, for /continuity. */
	readonly byProvenance = new Map<string, Omission["omitted"]>();
	private count = 0;

	constructor(ext: Extension) {
		this.ext = ext;
	}

	/**
	 * stepStarted prepares the step's request (turn_start). pi may not wait
	 * for this handler before it builds the request, so the request finds
	 * the preparation itself and awaits it.
	 */
	async stepStarted(ctx: ExtensionContext, log: SessionLog, step: number): Promise<void> {
		const pending = this.prepare(ctx);
		this.preparing.set(log.sessionId, { turn: log.turn, step, pending });
		try {
			if ((await pending)?.cancelled) ctx.abort();
		} catch {
			// The request reports what failed.
		}
	}

	/** turnEnded forgets the session's last request (agent_end). */
	turnEnded(sessionId: string): void {
		this.inFlight.delete(sessionId);
		this.preparing.delete(sessionId);
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
		const log = this.ext.log(ctx);
		if (this.ext.ended.has(log.sessionId)) return undefined;
		const { peer } = await this.ext.connect();
		const turn = log.turn;
		const step = Math.max(log.step, 1);
		const accountId = await accountDigest(ctx.modelRegistry, model.provider);
		// The plugin's record of the session's account decides whether a
		// switch pauses: it is asked at every turn's first step, not only
		// when the extension's own record (the last account/selected in pi's
		// session file, in file order across branches) differs, and at any
		// later step whose account is not the one the last request used (a
		// prompt that pi delivers into a running turn as a follow-up). Only a
		// session's first turn with no record at all has nothing to switch from.
		const history = log.account !== undefined || turn > 1;
		if (accountId && history && (step === 1 || accountId !== log.account)) {
			if ((await this.ext.prompts.accountSwitch(ctx, peer, log.sessionId, accountId)) === "cancel") {
				return { cancelled: true, turn, step };
			}
		}
		if (accountId) log.selectAccount(accountId);
		const ref: RequestRef = {
			sessionId: log.sessionId,
			turn,
			step,
			requestId: `pi-${process.pid}-${++this.count}`,
			provider: model.provider,
			model: model.id,
			accountId,
		};
		return { turn, step, ref, admission: sendAdmission(peer, ref) };
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
			log = this.ext.log(ctx);
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
			this.ext.prompts.diagnostic(ctx, err);
		} catch {
			process.stderr.write(`continuity: ${(err as Error)?.message ?? String(err)}\n`);
		}
		return withoutReasoning(payload);
	}

	private async filter(payload: unknown, ctx: ExtensionContext, log: SessionLog): Promise<unknown> {
		if (this.ext.ended.has(log.sessionId)) {
			ctx.abort(); // the plugin ended this turn (the session continued in a successor)
			return withoutReasoning(payload);
		}
		const step = Math.max(log.step, 1);
		const started = this.preparing.get(log.sessionId);
		this.preparing.delete(log.sessionId);
		let p = started && started.turn === log.turn && started.step === step ? await started.pending : undefined;
		if (!p) p = await this.prepare(ctx); // not prepared at turn_start: a retry, or a failed preparation
		if (!p) return undefined;
		if (p.cancelled || !p.ref || !p.admission) {
			ctx.abort(); // Cancel at the account-switch pause
			this.sent.set(log.sessionId, { omitted: new Set(), account: log.account, failed: true });
			return withoutReasoning(payload);
		}
		const { peer } = await this.ext.connect();
		const ref = p.ref;
		const digest = payloadForm() === "digest";
		const rule = this.ext.rule();
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
		if (admission?.enabled && isDelta(payload)) throw new Error(this.ext.texts.t("payload.delta"));
		let body: unknown;
		if (!admission) body = undefined;
		else if (admission.enabled && rule === "provenance") body = this.byIssuer(ctx, ref, payload);
		else if (digest) {
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

	/** byIssuer is the provenance rule on an admitted request (provenance.ts). */
	private byIssuer(ctx: ExtensionContext, ref: RequestRef, payload: unknown): unknown {
		const input = (payload as { input?: unknown } | null)?.input;
		if (!Array.isArray(input)) {
			trace(ref, { outcome: "native", omitted: { items: 0, codeUnits: 0, strippedIds: 0 } }, payload);
			return undefined;
		}
		const items = objects(input);
		const issuers = this.ext.issuers(ctx);
		if (ref.accountId) issuers.seen(ref.accountId);
		const om = issuers.decide(items, ref.accountId ?? "");
		const body = om.omit.length || om.strip.length ? { ...(payload as object), input: cut(items, om.omit, om.strip) } : undefined;
		this.byProvenance.set(ref.sessionId, om.omitted);
		trace(ref, { outcome: body ? "filtered" : "unchanged", omitted: om.omitted }, body ?? payload);
		return body;
	}

	/**
	 * refresh filters a cache-warming request: the last request's omissions
	 * again, and — when the account the refresh goes out with is not the
	 * one that request was made with (a switch while idle) — every
	 * reasoning item not issued to it. A refresh stays out of the model's
	 * context, so omitting loses nothing a person reads.
	 */
	private async refresh(ctx: ExtensionContext, log: SessionLog, provider: string, payload: unknown): Promise<unknown> {
		const input = (payload as { input?: unknown } | null)?.input;
		if (!Array.isArray(input)) return undefined;
		const items = objects(input);
		const account = await accountDigest(ctx.modelRegistry, provider);
		// A refresh is sent without continuation (pi's disableContinuation);
		// one that names a previous response all the same goes without it:
		// its answer never enters the context.
		const delta = isDelta(payload);
		if (delta) {
			const { previous_response_id: _prev, ...whole } = payload as Record<string, unknown>;
			payload = whole;
		}
		const issuers = this.ext.issuers(ctx);
		const om = omission(items, refreshOf(this.sent.get(log.sessionId), account, (c) => issuers.issuer(c)));
		const ref: RequestRef = { sessionId: log.sessionId, turn: log.turn, step: log.step, requestId: `pi-${process.pid}-warm-${++this.count}`, provider, model: ctx.model?.id ?? "", accountId: account };
		const body = delta || om.omit.length || om.strip.length ? { ...(payload as object), input: cut(items, om.omit, om.strip) } : undefined;
		trace(ref, { outcome: body ? "filtered" : "unchanged", omitted: om.omitted }, body ?? payload);
		return body;
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
		const peer = this.ext.plugin?.peer;
		if (!ref || !peer || peer.isClosed) return;
		const { status, errorBody } = failure(errorMessage);
		peer.notify("llm/response", { requestId: ref.requestId, status, errorBody });
		await this.ext.guard(ctx, async () => {
			const { notices } = await views.notices(peer, log.sessionId);
			const n = notices.find((x) => x.kind === "replayRejected" && x.requestId === ref.requestId);
			if (n) await this.ext.prompts.rejection(ctx, peer, log.sessionId, n);
		});
	}
}

/** isDelta reports whether a body continues a previous response (only what is new since it). */
function isDelta(body: unknown): boolean {
	return typeof (body as { previous_response_id?: unknown } | null)?.previous_response_id === "string";
}

/** objects checks that every input item is an object, as the digest form does (describe). */
function objects(input: unknown[]): Item[] {
	for (let i = 0; i < input.length; i++) {
		const it = input[i];
		if (it === null || typeof it !== "object" || Array.isArray(it)) {
			throw new Error(`COPILOT_CONTINUATION_INVALID_PAYLOAD: input item ${i} is not an object`);
		}
	}
	return input as Item[];
}
