// Unit tests of the digest form (src/digest.ts): the items text the
// extension writes, the cut it makes from the plugin's answer, and when it
// hashes ahead of the admission. Run with node --experimental-strip-types
// --test (integrations/pi/e2e runs them).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { cut, describe, describeAhead, filterDigest } from "../src/digest.ts";
import { type Admission, PendingAdmission, type RequestRef } from "../src/payload.ts";
import { Peer } from "../src/rpc.ts";

const sha = (s: string) => createHash("sha256").update(s).digest("hex");

function body() {
	return {
		model: "gpt-5.4",
		input: [
			{ role: "user", content: [{ type: "input_text", text: "hi" }] },
			{ type: "reasoning", id: "rs_1", summary: [], encrypted_content: "gAAA\u00e9" },
			{ type: "function_call", id: "fc_1", call_id: "c1", name: "read", arguments: "{}" },
			{ type: "function_call_output", call_id: "c1", output: "x" },
			{ type: "reasoning", id: "rs_2", summary: [], encrypted_content: "" },
			{ type: "tipo \"raro\"", id: undefined },
		],
	};
}

test("describe writes each item's type, id presence and reasoning digest as the protocol's items", () => {
	const d = describe(body());
	assert.ok(d);
	assert.deepEqual(JSON.parse(d.items), [
		{},
		{ type: "reasoning", id: true, sha256: sha("gAAA\u00e9"), units: 5 },
		{ type: "function_call", id: true },
		{ type: "function_call_output" },
		{ type: "reasoning", id: true },
		{ type: 'tipo "raro"', id: true },
	]);
	assert.equal(describe({ messages: [] }), undefined, "a Chat Completions body does not take part");
	assert.throws(() => describe({ input: [{ type: "message" }, "text"] }), /INVALID_PAYLOAD: input item 1 is not an object/);
});

test("cut leaves out omit, removes the id of strip, and refuses lists that do not ascend", () => {
	const input = body().input as Record<string, unknown>[];
	const kept = cut(input, [1, 4], [2]);
	assert.equal(kept.length, 4);
	assert.equal(kept[0], input[0], "kept items are pi's own objects");
	assert.deepEqual(kept[1], { type: "function_call", call_id: "c1", name: "read", arguments: "{}" });
	assert.equal(input[2].id, "fc_1", "pi's item is not changed");
	assert.throws(() => cut(input, [4, 1], []), /do not ascend/);
	assert.throws(() => cut(input, [9], []), /do not ascend/);
	assert.throws(() => cut(input, [], [2, 2]), /do not ascend/);
});

test("describeAhead hashes only while the admission travels and is likely enabled", async () => {
	let answer!: (a: Admission | null) => void;
	const pending = new PendingAdmission(new Promise((resolve) => (answer = resolve)));
	assert.equal(describeAhead(pending, body(), false), undefined, "not likely enabled: no hashing it may not use");
	assert.ok(describeAhead(pending, body(), true), "on its way and likely: hashed now");
	answer({ enabled: true, source: "default" });
	await pending.result;
	assert.equal(pending.settled, true);
	assert.equal(describeAhead(pending, body(), true), undefined, "answered: hashed after, as without it");
});

test("filterDigest sends the described items and cuts the body as the plugin answers", async () => {
	const toPlugin = new PassThrough();
	const fromPlugin = new PassThrough();
	const peer = new Peer(toPlugin, fromPlugin);
	const sent: string[] = [];
	toPlugin.on("data", (b: Buffer) => sent.push(...b.toString("utf8").split("\n").filter(Boolean)));
	const ref: RequestRef = { sessionId: "s", turn: 2, step: 1, requestId: "pi-1", provider: "github-copilot", model: "gpt-5.4" };
	const b = body();
	const early = describe(b);
	const done = filterDigest(peer, ref, b, early);
	await new Promise((r) => setImmediate(r));
	const req = JSON.parse(sent[0]);
	assert.equal(req.method, "llm/payloadDigest");
	assert.deepEqual(req.params, { requestId: "pi-1", sessionId: "s", turn: 2, step: 1, provider: "github-copilot", model: "gpt-5.4", purpose: "chat", items: JSON.parse(early!.items) });
	fromPlugin.write(`{"jsonrpc":"2.0","id":${req.id},"result":{"outcome":"filtered","omit":[1],"strip":[2],"omitted":{"items":1,"codeUnits":5,"strippedIds":1}}}\n`);
	const { body: out, res } = await done;
	assert.equal(res.outcome, "filtered");
	assert.deepEqual((out as { input: unknown[] }).input.map((it) => (it as { id?: string }).id), [undefined, undefined, undefined, "rs_2", undefined]);
	assert.equal((out as { model: string }).model, "gpt-5.4");
});
