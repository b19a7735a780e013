// What a refresh (pi 1.x's cache warming) may carry. A refresh repeats the
// session's last request as pi built it, before this extension filtered
// it, outside any turn: the plugin has no turn to bind it to. So the
// extension remembers what each real request left out and leaves it out of
// the refreshes that repeat it; when the refresh goes out with another
// account than that request did (the credential changed while idle), every
// reasoning item not issued to that account is left out too.
type Item = Record<string, unknown>;

/** Sent is what a session's last real request left out, by encrypted_content. */
export interface Sent {
	/** The encrypted_content strings omitted (pi's own strings: no copy, no hashing). */
	omitted: Set<string>;
	/** The account digest the request was made with. */
	account?: string;
	/** failed: the request was stopped, or its answer was an error. */
	failed: boolean;
}

function contents(body: unknown): string[] {
	const input = (body as { input?: unknown } | null)?.input;
	if (!Array.isArray(input)) return [];
	const out: string[] = [];
	for (const it of input as Item[]) {
		if (it?.type === "reasoning" && typeof it.encrypted_content === "string") out.push(it.encrypted_content);
	}
	return out;
}

/** sentOf compares pi's body with the one sent (undefined: pi's own went). */
export function sentOf(original: unknown, sent: unknown, account: string | undefined): Sent {
	if (sent === undefined) return { omitted: new Set(), account, failed: false };
	const kept = new Set(contents(sent));
	return { omitted: new Set(contents(original).filter((c) => !kept.has(c))), account, failed: false };
}

/**
 * refreshOf decides, per reasoning item of a refresh going out with
 * account, whether to leave it out: what the last request left out, and
 * — when the account is not that request's, or no request is known — all
 * that was not issued to account.
 */
export function refreshOf(last: Sent | undefined, account: string | undefined, issuer: (content: string) => string | undefined): (it: Item) => boolean {
	const switched = !last || !account || last.account !== account;
	return (it) => {
		const c = it.encrypted_content;
		if (typeof c !== "string" || c === "") return false;
		if (last?.omitted.has(c)) return true;
		return switched && issuer(c) !== account;
	};
}

/** withoutReasoning is body with every reasoning item and the ids paired with them removed. */
export function withoutReasoning(body: unknown): unknown {
	const input = (body as { input?: unknown } | null)?.input;
	if (!Array.isArray(input)) return undefined;
	const out: unknown[] = [];
	let dropped = false;
	for (const it of input as Item[]) {
		if (it && typeof it === "object" && it.type === "reasoning") {
			dropped = true;
			continue;
		}
		if (dropped && it && typeof it === "object" && "id" in it) {
			const { id: _id, ...rest } = it;
			out.push(rest);
		} else out.push(it);
		dropped = false;
	}
	return { ...(body as object), input: out };
}
