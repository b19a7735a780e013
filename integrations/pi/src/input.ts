// Reading a Responses body as pi hands it to the payload hook: its input
// items, checked to be objects, and whether it is a continuation delta.

/** Item is one input item of a Responses body. */
export type Item = Record<string, unknown>;

/** isDelta reports whether a body continues a previous response (only what is new since it). */
export function isDelta(body: unknown): boolean {
	return typeof (body as { previous_response_id?: unknown } | null)?.previous_response_id === "string";
}

/** objects checks that every input item is an object, as the digest form does (describe). */
export function objects(input: unknown[]): Item[] {
	for (let i = 0; i < input.length; i++) {
		const it = input[i];
		if (it === null || typeof it !== "object" || Array.isArray(it)) {
			throw new Error(`COPILOT_CONTINUATION_INVALID_PAYLOAD: input item ${i} is not an object`);
		}
	}
	return input as Item[];
}
