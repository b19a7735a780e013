// The digest form of a request (llm/payloadDigest, docs/protocol.md
// §14.1): the body stays pi's object, each top-level item is described by
// its type, whether it has an id, and for reasoning the SHA-256 of its
// encrypted_content with that string's length in UTF-16 code units. The
// plugin answers which items to omit and whose id to remove, and the kept
// items go out as the very objects pi built.
import { createHash } from "node:crypto";
import type { PendingAdmission, RequestRef } from "./payload.ts";
import type { Peer } from "./rpc.ts";

/** A Responses body as pi's payload hook holds it. */
interface Body {
	input?: unknown;
	[k: string]: unknown;
}

type Item = Record<string, unknown>;

export interface DigestResult {
	outcome: "filtered" | "unchanged" | "native";
	omit?: number[];
	strip?: number[];
	omitted: { items: number; codeUnits: number; strippedIds: number };
}

/** A body's items, described: the params' items member as JSON text. */
export interface Described {
	input: Item[];
	items: string;
}

const NATIVE: DigestResult = { outcome: "native", omitted: { items: 0, codeUnits: 0, strippedIds: 0 } };

/** The JSON text of each item type seen, so a type is escaped once. */
const typeMembers = new Map<string, string>();
const MAX_TYPES = 64;

function typeMember(type: string): string {
	let m = typeMembers.get(type);
	if (m === undefined) {
		m = `"type":${JSON.stringify(type)}`;
		if (typeMembers.size < MAX_TYPES) typeMembers.set(type, m);
	}
	return m;
}

/**
 * describe hashes a body's reasoning and writes the items member's JSON
 * text directly (no object per item, no second serialization). It returns
 * undefined for a body that is not a Responses request (Chat Completions,
 * Anthropic Messages): it does not take part, as the bytes form's plugin
 * would say.
 */
export function describe(body: unknown): Described | undefined {
	const input = (body as Body | null)?.input;
	if (!Array.isArray(input)) return undefined;
	const parts: string[] = new Array(input.length);
	for (let i = 0; i < input.length; i++) {
		const it = input[i] as Item;
		if (it === null || typeof it !== "object" || Array.isArray(it)) {
			// The bytes form's plugin refuses such a body; the digest form
			// cannot describe it.
			throw new Error(`COPILOT_CONTINUATION_INVALID_PAYLOAD: input item ${i} is not an object`);
		}
		let d = "";
		const type = it.type;
		if (typeof type === "string") d = typeMember(type);
		if ("id" in it) d += d ? `,"id":true` : `"id":true`;
		const content = it.encrypted_content;
		if (type === "reasoning" && typeof content === "string" && content !== "") {
			const sha256 = createHash("sha256").update(content).digest("hex");
			d += `${d ? "," : ""}"sha256":"${sha256}","units":${content.length}`;
		}
		parts[i] = `{${d}}`;
	}
	return { input: input as Item[], items: `[${parts.join(",")}]` };
}

/**
 * decide sends llm/payloadDigest for a described body and cuts the body as
 * the plugin answers. It returns the body to send (undefined: pi's own)
 * and the result.
 */
export async function decide(peer: Peer, r: RequestRef, d: Described, body: unknown, signal?: AbortSignal): Promise<{ body: unknown; res: DigestResult }> {
	const head = JSON.stringify({ requestId: r.requestId, sessionId: r.sessionId, turn: r.turn, step: r.step, provider: r.provider, model: r.model, purpose: "chat" });
	const res = await peer.request<DigestResult>("llm/payloadDigest", `${head.slice(0, -1)},"items":${d.items}}`, signal);
	if (res.outcome !== "filtered") return { body: undefined, res };
	return { body: { ...(body as Body), input: cut(d.input, res.omit ?? [], res.strip ?? []) }, res };
}

/**
 * cut leaves out the items at omit and removes the id member of those at
 * strip. Both lists ascend (§14.1); one that does not, or that names an
 * item the body does not have, is the plugin's error and stops the
 * request rather than sending a body cut by guess.
 */
export function cut(input: Item[], omit: number[], strip: number[]): Item[] {
	const kept: Item[] = [];
	let o = 0;
	let s = 0;
	for (let i = 0; i < input.length; i++) {
		if (omit[o] === i) {
			o++;
			continue;
		}
		if (strip[s] === i) {
			s++;
			const { id: _id, ...rest } = input[i];
			kept.push(rest);
			continue;
		}
		kept.push(input[i]);
	}
	if (o !== omit.length || s !== strip.length) {
		throw new Error(`llm/payloadDigest answered indices that do not ascend within the ${input.length} items`);
	}
	return kept;
}

/**
 * filterDigest is the digest form for an admitted request: the body's
 * description (made while the admission travelled, see describeAhead, or
 * now), the plugin's answer, the cut body.
 */
export async function filterDigest(
	peer: Peer,
	r: RequestRef,
	body: unknown,
	early?: Described,
	signal?: AbortSignal,
): Promise<{ body: unknown; res: DigestResult }> {
	const d = early ?? describe(body);
	if (!d) return { body: undefined, res: NATIVE };
	return decide(peer, r, d, body, signal);
}

/**
 * describeAhead describes the body at the payload hook while the step's
 * agent/request (sent at turn_start) is still on its way, so that hashing
 * overlaps its round trip instead of following it — but only when the
 * session's last admission was enabled (likely), since a session that
 * does not take part would pay for hashing it will not use. undefined:
 * the answer is in already, or not worth the wait.
 */
export function describeAhead(pending: PendingAdmission, body: unknown, likely: boolean): Described | undefined {
	return likely && !pending.settled ? describe(body) : undefined;
}
