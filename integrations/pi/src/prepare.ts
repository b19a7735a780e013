// A step's request prepared at turn_start, before pi builds it: the
// account check (which may pause the turn for the person's choice) and the
// admission (agent/request), sent and not awaited, so its round trip
// overlaps pi's own work on the request. The payload hook takes the
// preparation of its step, or prepares one itself (a retry, or a step
// turn_start did not prepare).
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import { accountDigest } from "./account.ts";
import type { SessionLog } from "./events.ts";
import { type PendingAdmission, type RequestRef, sendAdmission } from "./payload.ts";
import { PAYLOAD_PROVIDERS } from "./plugin.ts";
import type { Peer } from "./rpc.ts";
import type { Sessions } from "./sessions.ts";
import type { Prompts } from "./ui.ts";

/** Prepared is a step's admission, sent at turn_start, or its cancellation. */
export interface Prepared {
	turn: number;
	step: number;
	cancelled?: true;
	ref?: RequestRef;
	admission?: PendingAdmission;
}

/** What preparing a request needs of the extension. */
export interface PrepareDeps {
	sessions: Pick<Sessions, "log" | "ended">;
	prompts: Pick<Prompts, "accountSwitch">;
	connect(): Promise<{ peer: Peer }>;
}

export class Preparations {
	/** Each session's step being prepared at turn_start. */
	private readonly preparing = new Map<string, { turn: number; step: number; pending: Promise<Prepared | undefined> }>();
	private count = 0;
	private readonly deps: PrepareDeps;

	constructor(deps: PrepareDeps) {
		this.deps = deps;
	}

	/** requestId names the next request this process sends (kind "warm" for a refresh). */
	requestId(kind?: "warm"): string {
		return `pi-${process.pid}-${kind ? `${kind}-` : ""}${++this.count}`;
	}

	/** start prepares the step of log at turn_start and keeps it for the payload hook. */
	start(ctx: ExtensionContext, log: SessionLog, step: number): Promise<Prepared | undefined> {
		const pending = this.prepare(ctx);
		this.preparing.set(log.sessionId, { turn: log.turn, step, pending });
		return pending;
	}

	/**
	 * take is the preparation of log's current step: the one turn_start
	 * made, or a new one when turn_start made none for this step.
	 */
	async take(ctx: ExtensionContext, log: SessionLog): Promise<Prepared | undefined> {
		const step = Math.max(log.step, 1);
		const started = this.preparing.get(log.sessionId);
		this.preparing.delete(log.sessionId);
		const p = started && started.turn === log.turn && started.step === step ? await started.pending : undefined;
		return p ?? this.prepare(ctx); // not prepared at turn_start: a retry, or a failed preparation
	}

	/** forget drops the session's preparation (agent_end). */
	forget(sessionId: string): void {
		this.preparing.delete(sessionId);
	}

	private async prepare(ctx: ExtensionContext): Promise<Prepared | undefined> {
		const model = ctx.model;
		if (!model || !PAYLOAD_PROVIDERS.includes(model.provider)) return undefined;
		const log = this.deps.sessions.log(ctx);
		if (this.deps.sessions.ended.has(log.sessionId)) return undefined;
		const { peer } = await this.deps.connect();
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
			if ((await this.deps.prompts.accountSwitch(ctx, peer, log.sessionId, accountId)) === "cancel") {
				return { cancelled: true, turn, step };
			}
		}
		if (accountId) log.selectAccount(accountId);
		const ref: RequestRef = {
			sessionId: log.sessionId,
			turn,
			step,
			requestId: this.requestId(),
			provider: model.provider,
			model: model.id,
			accountId,
		};
		return { turn, step, ref, admission: sendAdmission(peer, ref) };
	}
}
