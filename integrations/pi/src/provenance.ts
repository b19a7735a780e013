// Provenance: which account each encrypted reasoning item was issued to,
// and the proxy's omission rule on top of it (proxy/provenance.go): an item
// issued to the account in use is kept across turns, one issued to another
// account is omitted, and one of unknown issuer is omitted once the session
// was seen with more than one account. The records are fingerprints (the
// SHA-256 of encrypted_content) and account digests only, kept in pi's
// session file as custom entries so a later `pi -c` decides the same way.
import { createHash } from "node:crypto";
import { EVENT_ENTRY } from "./events.ts";

/** ISSUED_ENTRY is one issuance: {sha256, accountId} (both hex digests). */
export const ISSUED_ENTRY = "continuity-issued";

/** Rule is which omission rule a session's admitted requests follow. */
export type Rule = "provenance" | "turn";

export const RULES: readonly Rule[] = ["provenance", "turn"];

type Item = Record<string, unknown>;

interface Entry {
	type: string;
	customType?: string;
	data?: unknown;
}

/** Omission is which items of a body to leave out and whose id to remove, as llm/payloadDigest answers. */
export interface Omission {
	omit: number[];
	strip: number[];
	omitted: { items: number; codeUnits: number; strippedIds: number };
}

/** fingerprint is the hex SHA-256 of an encrypted_content string. */
export function fingerprint(content: string): string {
	return createHash("sha256").update(content).digest("hex");
}

/** Issuers is one session's issuance records and the accounts it was seen with. */
export class Issuers {
	private readonly by = new Map<string, string>();
	private readonly accounts = new Set<string>();
	private readonly append: (customType: string, data: unknown) => void;

	constructor(entries: Entry[], append: (customType: string, data: unknown) => void) {
		this.append = append;
		for (const e of entries) {
			if (e.type !== "custom") continue;
			const d = e.data as Record<string, unknown> | undefined;
			if (e.customType === ISSUED_ENTRY && typeof d?.sha256 === "string" && typeof d.accountId === "string") {
				if (!this.by.has(d.sha256)) this.by.set(d.sha256, d.accountId);
				this.accounts.add(d.accountId);
			} else if (e.customType === EVENT_ENTRY && d?.type === "account/selected") {
				const a = (d.data as Record<string, unknown> | undefined)?.accountId;
				if (typeof a === "string") this.accounts.add(a);
			}
		}
	}

	/** seen notes that the session runs on account (a request was made with it). */
	seen(account: string): void {
		this.accounts.add(account);
	}

	/** multi reports whether the session was seen with more than one account. */
	get multi(): boolean {
		return this.accounts.size > 1;
	}

	/** issuer is the account content was issued to, undefined when no record says. */
	issuer(content: string): string | undefined {
		return this.by.get(fingerprint(content));
	}

	/**
	 * record notes that a reasoning item with this encrypted_content was
	 * issued to account. The first issuer stays: content is not issued twice.
	 */
	record(content: string, account: string): void {
		const fp = fingerprint(content);
		this.accounts.add(account);
		if (this.by.has(fp)) return;
		this.by.set(fp, account);
		this.append(ISSUED_ENTRY, { sha256: fp, accountId: account });
	}

	/** recordItem records a finished output item when it is encrypted reasoning. */
	recordItem(item: unknown, account: string): void {
		const it = item as Item | null;
		if (it?.type === "reasoning" && typeof it.encrypted_content === "string" && it.encrypted_content !== "") {
			this.record(it.encrypted_content, account);
		}
	}

	/**
	 * decide is the provenance rule over a body's items for a request made
	 * with account: which reasoning items to omit, and the id of the item
	 * directly after each omitted one to remove (the paired-id rule every
	 * known provider needs, docs/protocol.md §14).
	 */
	decide(input: Item[], account: string): Omission {
		const foreign = (content: string) => {
			const by = this.issuer(content);
			return by === undefined ? this.multi : by !== account;
		};
		return omission(input, (it) => typeof it.encrypted_content === "string" && it.encrypted_content !== "" && foreign(it.encrypted_content));
	}
}

/**
 * omission lists the reasoning items drop selects and the ids paired with
 * them: the id of the item right after an omitted reasoning item, when
 * that item stays.
 */
export function omission(input: Item[], drop: (reasoning: Item) => boolean): Omission {
	const omitted = new Set<number>();
	let codeUnits = 0;
	for (let i = 0; i < input.length; i++) {
		const it = input[i];
		if (it?.type === "reasoning" && drop(it)) {
			omitted.add(i);
			codeUnits += typeof it.encrypted_content === "string" ? it.encrypted_content.length : 0;
		}
	}
	const strip: number[] = [];
	for (const i of omitted) {
		const next = input[i + 1];
		if (next && !omitted.has(i + 1) && "id" in next) strip.push(i + 1);
	}
	strip.sort((a, b) => a - b);
	return { omit: [...omitted], strip, omitted: { items: omitted.size, codeUnits, strippedIds: strip.length } };
}

/** fingerprintsAt is the fingerprint of each reasoning item at the given indices. */
export function fingerprintsAt(input: Item[], at: number[]): Set<string> {
	const out = new Set<string>();
	for (const i of at) {
		const c = input[i]?.encrypted_content;
		if (typeof c === "string") out.add(fingerprint(c));
	}
	return out;
}
