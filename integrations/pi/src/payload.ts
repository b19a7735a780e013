// One provider request of pi as the protocol sees it: agent/request binds it
// to the session's turn, llm/payload filters its body (or its digest form
// describes it, digest.ts). The body is serialized once and spliced into
// the params; the plugin's filtered body replaces pi's payload. Any plugin
// error stops the request: pi goes on after a throwing handler, so the
// request is aborted and the named diagnostic shown instead.
import { createHash } from "node:crypto";
import { appendFileSync } from "node:fs";
import type { Peer } from "./rpc.ts";

export interface RequestRef {
	sessionId: string;
	turn: number;
	step: number;
	requestId: string;
	provider: string;
	model: string;
	accountId?: string;
}

export interface Admission {
	enabled: boolean;
	source: string;
}

export interface PayloadResult {
	outcome: "filtered" | "unchanged" | "native";
	payload?: unknown;
	omitted: { items: number; codeUnits: number; strippedIds: number };
	sha256: string;
}

/** admit sends agent/request; null admission means the provider does not take part. */
export async function admit(peer: Peer, r: RequestRef, reasoningEffort?: string): Promise<Admission | null> {
	const config: Record<string, string> = { provider: r.provider, model: r.model };
	if (reasoningEffort) config.reasoningEffort = reasoningEffort;
	const params: Record<string, unknown> = { sessionId: r.sessionId, turn: r.turn, step: r.step, requestId: r.requestId, config };
	if (r.accountId) params.accountId = r.accountId;
	const res = await peer.request<{ admission: Admission | null }>("agent/request", params);
	return res.admission;
}

/**
 * PendingAdmission is an agent/request sent at turn_start and answered
 * while pi builds the request: the payload hook awaits result, and can
 * tell whether the answer is already in (settled) to decide what to do
 * while it is not.
 */
export class PendingAdmission {
	settled = false;
	readonly result: Promise<Admission | null>;
	constructor(sent: Promise<Admission | null>) {
		const settle = () => {
			this.settled = true;
		};
		this.result = sent.finally(settle);
		this.result.catch(() => {}); // awaited, and reported, by the request
	}
}

/** sendAdmission sends agent/request without waiting for its answer. */
export function sendAdmission(peer: Peer, r: RequestRef): PendingAdmission {
	return new PendingAdmission(admit(peer, r));
}

/**
 * filterPayload sends llm/payload with the body spliced in as JSON text
 * (JSON.stringify once, never a second object), and returns the result.
 */
export async function filterPayload(peer: Peer, r: RequestRef, body: unknown, signal?: AbortSignal): Promise<PayloadResult> {
	const head = JSON.stringify({ requestId: r.requestId, sessionId: r.sessionId, turn: r.turn, step: r.step, provider: r.provider, model: r.model, purpose: "chat" });
	const params = `${head.slice(0, -1)},"payload":${JSON.stringify(body)}}`;
	return peer.request<PayloadResult>("llm/payload", params, signal);
}

/** The status and body of a failed request as pi reports it ("400 {…}"). */
export function failure(errorMessage: string): { status: number; errorBody: string } {
	const m = /\b([1-5]\d\d)\b/.exec(errorMessage.slice(0, 64));
	const body = Buffer.from(errorMessage, "utf8");
	const errorBody = body.length <= 8192 ? errorMessage : body.subarray(0, 8192).toString("utf8").replace(/\uFFFD+$/, "");
	return { status: m ? Number(m[1]) : 0, errorBody };
}

/**
 * trace appends one line per filtered request to CONTINUITY_TRACE, when it
 * is set: ids, outcome, counts and the digest of the final body — never
 * content. Tests compare the digest with the bytes the supplier received.
 */
export function trace(r: RequestRef, res: { outcome: string; omitted: unknown; sha256?: string }, sent?: unknown, env: NodeJS.ProcessEnv = process.env): void {
	if (!env.CONTINUITY_TRACE) return;
	// The digest form has no plugin bytes: the digest is of the body this
	// extension hands pi, serialized as pi serializes it.
	const sha256 = res.sha256 ?? createHash("sha256").update(JSON.stringify(sent)).digest("hex");
	const line = { requestId: r.requestId, sessionId: r.sessionId, turn: r.turn, step: r.step, outcome: res.outcome, omitted: res.omitted, sha256 };
	appendFileSync(env.CONTINUITY_TRACE, `${JSON.stringify(line)}\n`);
}
