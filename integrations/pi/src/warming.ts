// pi 1.x's cache-warming refreshes at the payload hook. A refresh repeats
// the session's last request outside any turn, so it is not admitted: it
// gets the last request's omissions again, and — when the account it goes
// out with is not the one that request was made with (a switch while
// idle) — every reasoning item not issued to it (refresh.ts). A refresh
// stays out of the model's context, so omitting loses nothing a person
// reads.
import { cut } from "./digest.ts";
import { isDelta, objects } from "./input.ts";
import { trace, type RequestRef } from "./payload.ts";
import { omission, type Issuers } from "./provenance.ts";
import { refreshOf, type Sent } from "./refresh.ts";

/** What a refresh is filtered with: the session's last request and issuance, and the account it goes with. */
export interface RefreshDeps {
	/** last is what the session's last real request sent, read when the refresh is filtered. */
	last(): Sent | undefined;
	issuers: Pick<Issuers, "issuer">;
	/** account is the digest of the credential the refresh goes out with. */
	account(): Promise<string | undefined>;
	/** ref names the refresh for the trace (a new request id each call). */
	ref(accountId: string | undefined): RequestRef;
}

/** refreshBody is the body a refresh goes out with (undefined: pi's own). */
export async function refreshBody(payload: unknown, deps: RefreshDeps): Promise<unknown> {
	const input = (payload as { input?: unknown } | null)?.input;
	if (!Array.isArray(input)) return undefined;
	const items = objects(input);
	const account = await deps.account();
	// A refresh is sent without continuation (pi's disableContinuation);
	// one that names a previous response all the same goes without it:
	// its answer never enters the context.
	const delta = isDelta(payload);
	if (delta) {
		const { previous_response_id: _prev, ...whole } = payload as Record<string, unknown>;
		payload = whole;
	}
	const om = omission(items, refreshOf(deps.last(), account, (c) => deps.issuers.issuer(c)));
	const ref = deps.ref(account);
	const body = delta || om.omit.length || om.strip.length ? { ...(payload as object), input: cut(items, om.omit, om.strip) } : undefined;
	trace(ref, { outcome: body ? "filtered" : "unchanged", omitted: om.omitted }, body ?? payload);
	return body;
}
