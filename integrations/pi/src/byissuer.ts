// The provenance rule on an admitted request (provenance.ts): the input
// keeps what was issued to the account in use and leaves out what another
// account, or no record, issued. Decided in the extension from the
// session's issuance records; the plugin admitted the turn already.
import { cut } from "./digest.ts";
import { objects } from "./input.ts";
import { trace, type RequestRef } from "./payload.ts";
import type { Issuers, Omission } from "./provenance.ts";

/**
 * filterByIssuer is the body ref sends under the provenance rule
 * (undefined: pi's own, nothing to leave out) and what it left out.
 */
export function filterByIssuer(issuers: Issuers, ref: RequestRef, payload: unknown): { body: unknown; omitted: Omission["omitted"] | undefined } {
	const input = (payload as { input?: unknown } | null)?.input;
	if (!Array.isArray(input)) {
		trace(ref, { outcome: "native", omitted: { items: 0, codeUnits: 0, strippedIds: 0 } }, payload);
		return { body: undefined, omitted: undefined };
	}
	const items = objects(input);
	if (ref.accountId) issuers.seen(ref.accountId);
	const om = issuers.decide(items, ref.accountId ?? "");
	const body = om.omit.length || om.strip.length ? { ...(payload as object), input: cut(items, om.omit, om.strip) } : undefined;
	trace(ref, { outcome: body ? "filtered" : "unchanged", omitted: om.omitted }, body ?? payload);
	return { body, omitted: om.omitted };
}
