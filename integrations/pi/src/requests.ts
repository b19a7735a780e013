// One provider request of pi, from turn_start to its answer: the account
// check and admission prepared when the step starts, the filter at the
// payload hook, and a failed answer reported back (llm/response) with
// what the plugin then offers.
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import { accountDigest } from "./account.ts";
import type { SessionLog } from "./events.ts";
import type { Extension } from "./extension.ts";
import { payloadForm } from "./outcomes.ts";
import { describeAhead, filterDigest } from "./digest.ts";
import { failure, filterPayload, type PendingAdmission, type RequestRef, sendAdmission, trace } from "./payload.ts";
import { PAYLOAD_PROVIDERS } from "./plugin.ts";
import { views } from "./remote.ts";

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
		if (accountId && step === 1 && log.account && log.account !== accountId) {
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
	 * undefined to send pi's own.
	 */
	async request(payload: unknown, ctx: ExtensionContext): Promise<unknown> {
		const model = ctx.model;
		if (!model || !PAYLOAD_PROVIDERS.includes(model.provider)) return undefined;
		const log = this.ext.log(ctx);
		if (this.ext.ended.has(log.sessionId)) {
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
			const { peer } = await this.ext.connect();
			const ref = p.ref;
			const digest = payloadForm() === "digest";
			const early = digest ? describeAhead(p.admission, payload, this.enabled.has(log.sessionId)) : undefined;
			const admission = await p.admission.result;
			this.inFlight.set(log.sessionId, ref);
			if (admission?.enabled) this.enabled.add(log.sessionId);
			else this.enabled.delete(log.sessionId);
			if (!admission) return undefined;
			if (digest) {
				const { body, res } = await filterDigest(peer, ref, payload, early, ctx.signal);
				trace(ref, res, body ?? payload);
				return body;
			}
			const res = await filterPayload(peer, ref, payload, ctx.signal);
			trace(ref, res);
			if (res.outcome === "filtered") return res.payload;
			return undefined;
		} catch (err) {
			ctx.abort();
			this.ext.prompts.diagnostic(ctx, err);
			return undefined;
		}
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
