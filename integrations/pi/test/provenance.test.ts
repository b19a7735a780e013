// Unit tests of the provenance rule (src/provenance.ts), the refresh
// decisions (src/refresh.ts) and the one-copy claim (src/duplicate.ts).
// Run with node --experimental-strip-types --test (integrations/pi/e2e
// runs them).
import assert from "node:assert/strict";
import { test } from "node:test";
import { claimProcess, type Global } from "../src/duplicate.ts";
import { fingerprint, ISSUED_ENTRY, Issuers, omission } from "../src/provenance.ts";
import { refreshOf, sentOf, withoutReasoning } from "../src/refresh.ts";

process.env.CONTINUITY_LOCALE = "en"; // the duplicate notice is matched in English

const rs = (id: string, content: string) => ({ type: "reasoning", id, summary: [], encrypted_content: content });
const fc = (id: string) => ({ type: "function_call", id, call_id: `c${id}`, name: "ls", arguments: "{}" });
const user = { role: "user", content: [{ type: "input_text", text: "hi" }] };

function issuers(entries: { type: string; customType?: string; data?: unknown }[] = []) {
	const appended: { t: string; d: unknown }[] = [];
	return { is: new Issuers(entries, (t, d) => appended.push({ t, d })), appended };
}

test("provenance keeps the account's own reasoning, omits another's and strips the paired id", () => {
	const { is, appended } = issuers();
	is.record("A1", "acct-A");
	is.record("B1", "acct-B");
	is.record("A1", "acct-B"); // the first issuer stays
	assert.equal(appended.length, 2);
	assert.deepEqual(appended[0], { t: ISSUED_ENTRY, d: { sha256: fingerprint("A1"), accountId: "acct-A" } });
	const input = [user, rs("rs_1", "A1"), fc("fc_1"), rs("rs_2", "B1"), fc("fc_2")];
	assert.deepEqual(is.decide(input, "acct-A"), { omit: [3], strip: [4], omitted: { items: 1, codeUnits: 2, strippedIds: 1 } });
	assert.deepEqual(is.decide(input, "acct-B").omit, [1]);
});

test("an unknown issuer is kept while the session has one account and omitted once it has two", () => {
	const { is } = issuers();
	is.seen("acct-A");
	const input = [user, rs("rs_9", "unknown"), fc("fc_9")];
	assert.deepEqual(is.decide(input, "acct-A").omit, []);
	is.seen("acct-B");
	assert.deepEqual(is.decide(input, "acct-A").omit, [1]);
});

test("the records are read back from the session's entries, account/selected events included", () => {
	const entries = [
		{ type: "custom", customType: ISSUED_ENTRY, data: { sha256: fingerprint("A1"), accountId: "acct-A" } },
		{ type: "custom", customType: "continuity-event", data: { type: "account/selected", data: { accountId: "acct-B" } } },
		{ type: "custom", customType: ISSUED_ENTRY, data: { sha256: 7 } }, // not a record: ignored
	];
	const { is } = issuers(entries);
	assert.equal(is.issuer("A1"), "acct-A");
	assert.equal(is.multi, true);
});

test("consecutive omitted reasoning items strip only the id after the last", () => {
	const input = [rs("rs_1", "x"), rs("rs_2", "y"), fc("fc_1"), { type: "function_call_output", call_id: "c1", output: "" }];
	assert.deepEqual(omission(input, () => true), { omit: [0, 1], strip: [2], omitted: { items: 2, codeUnits: 2, strippedIds: 1 } });
});

test("a refresh leaves out what its request left out, and after a switch all that is not the new account's", () => {
	const original = { input: [user, rs("rs_1", "A1"), fc("fc_1"), rs("rs_2", "B1"), fc("fc_2")] };
	const sent = { input: [user, original.input[3], original.input[4]] };
	const last = sentOf(original, sent, "acct-B");
	assert.deepEqual([...last.omitted], ["A1"]);
	const issuer = (c: string) => ({ A1: "acct-A", B1: "acct-B" })[c];
	const same = refreshOf(last, "acct-B", issuer);
	assert.deepEqual(omission(original.input, same).omit, [1]);
	const switched = refreshOf(last, "acct-C", issuer);
	assert.deepEqual(omission(original.input, switched).omit, [1, 3]);
	const none = refreshOf(undefined, "acct-A", issuer);
	assert.deepEqual(omission(original.input, none).omit, [3]);
	assert.deepEqual([...sentOf(original, undefined, "acct-A").omitted], []);
});

test("withoutReasoning drops every reasoning item and the ids paired with them", () => {
	const body = { model: "m", input: [user, rs("rs_1", "A1"), fc("fc_1"), fc("fc_2")] };
	assert.deepEqual(withoutReasoning(body), { model: "m", input: [user, { type: "function_call", call_id: "cfc_1", name: "ls", arguments: "{}" }, fc("fc_2")] });
	assert.equal(withoutReasoning({ messages: [] }), undefined);
});

test("a second copy registers nothing and names itself once per process, after the first copy's claim is renewed too", async () => {
	const g: Global = {};
	const handlers: { event: string; h: (e: unknown, ctx: unknown) => Promise<void> }[] = [];
	const pi = { on: (event: string, h: (e: unknown, ctx: unknown) => Promise<void>) => handlers.push({ event, h }) } as never;
	assert.equal(claimProcess(pi, "file:///one/index.ts", g), true);
	assert.equal(claimProcess(pi, "file:///two/index.ts", g), false);
	const notes: string[] = [];
	const ctx = { hasUI: true, ui: { notify: (s: string) => notes.push(s) } };
	const starts = () => handlers.filter((x) => x.event === "session_start");
	for (const s of starts()) await s.h({}, ctx);
	// /new: the first copy's shutdown releases the claim, both factories run again.
	for (const s of handlers.filter((x) => x.event === "session_shutdown")) await s.h({}, ctx);
	assert.equal(claimProcess(pi, "file:///one/index.ts", g), true);
	assert.equal(claimProcess(pi, "file:///two/index.ts", g), false);
	for (const s of starts()) await s.h({}, ctx);
	assert.equal(notes.length, 1);
	assert.match(notes[0], /A second copy of the continuity extension was loaded/);
	assert.match(notes[0], /1: \/one\/index\.ts; 2: \/two\/index\.ts/);
});
