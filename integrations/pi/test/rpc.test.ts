// Unit tests of the extension's pieces that need no pi: the NDJSON peer,
// the event mapping, the failure parsing and the binary locator. Run with
// node --experimental-strip-types --test (integrations/pi/e2e runs them).
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { accountDigest } from "../src/account.ts";
import { birthHeader, SessionLog, type SessionEvent } from "../src/events.ts";
import { locateBinary, platformPackage } from "../src/locate.ts";
import { failure } from "../src/payload.ts";
import { Peer, RPCError } from "../src/rpc.ts";

function pair() {
	const toPlugin = new PassThrough();
	const fromPlugin = new PassThrough();
	const peer = new Peer(toPlugin, fromPlugin);
	const sent: string[] = [];
	toPlugin.on("data", (b: Buffer) => sent.push(...b.toString("utf8").split("\n").filter(Boolean)));
	return { peer, sent, reply: (s: string | Buffer) => fromPlugin.write(s) };
}

test("a reply split across reads, and two in one read, resolve their requests", async () => {
	const { peer, reply } = pair();
	const a = peer.request("x", {});
	const b = peer.request("y", {});
	reply('{"jsonrpc":"2.0","id":1,"res');
	reply('ult":{"v":"a\u2028b"}}\n{"jsonrpc":"2.0","id":2,"error":{"code":-32001,"message":"COPILOT_CONTINUATION_REVOKED: the turn ended","data":{"code":"COPILOT_CONTINUATION_REVOKED"}}}\n');
	assert.deepEqual(await a, { v: "a\u2028b" });
	await assert.rejects(b, (e: unknown) => e instanceof RPCError && e.diagnostic === "COPILOT_CONTINUATION_REVOKED");
});

test("lines are the same however the reads split them: within one read, across reads, mid-character, and empty lines", { timeout: 30_000 }, async () => {
	const text = ["a\u00e9", "\u20ac", "\ud83d\ude00", "x".repeat(70_000)];
	const lines = text.map((v, i) => JSON.stringify({ jsonrpc: "2.0", id: i + 1, result: { v } }));
	const all = Buffer.from("\n" + lines.join("\n\n") + "\n", "utf8");
	// Every cut of the stream into two reads, then into reads of a few bytes.
	const cuts: number[][] = [];
	for (let at = 0; at <= all.length; at += at < 200 ? 1 : 997) cuts.push([at]);
	for (const step of [1, 2, 3, 7, 64]) cuts.push(Array.from({ length: Math.ceil(all.length / step) }, (_, k) => k * step));
	for (const cut of cuts) {
		const { peer, reply } = pair();
		const got = text.map(() => peer.request("x", {}));
		let from = 0;
		for (const at of [...cut, all.length]) {
			if (at > from) reply(all.subarray(from, at));
			from = Math.max(from, at);
		}
		assert.deepEqual(await Promise.all(got), text.map((v) => ({ v })), `cut at ${cut.slice(0, 3)}`);
	}
});

test("raw params are spliced verbatim and requests from the plugin are answered once", async () => {
	const { peer, sent, reply } = pair();
	void peer.request("llm/payload", '{"payload":{"a":1}}');
	assert.equal(sent[0], '{"jsonrpc":"2.0","id":1,"method":"llm/payload","params":{"payload":{"a":1}}}');
	peer.onRequest("agents/get", async (p) => ({ sessionId: p.sessionId }));
	reply('{"jsonrpc":"2.0","id":"req_1","method":"agents/get","params":{"sessionId":"s"}}\n{"jsonrpc":"2.0","id":7,"method":"nope","params":{}}\n');
	await new Promise((r) => setImmediate(r));
	const replies = new Map(sent.slice(1).map((l) => [JSON.parse(l).id, JSON.parse(l)]));
	assert.equal(replies.size, 2);
	assert.deepEqual(replies.get("req_1"), { jsonrpc: "2.0", id: "req_1", result: { sessionId: "s" } });
	assert.equal(replies.get(7).error.code, -32601);
});

test("a closed peer fails pending and later requests", async () => {
	const { peer } = pair();
	const p = peer.request("x", {});
	peer.close("exited (1)");
	await assert.rejects(p, /not running: exited/);
	await assert.rejects(peer.request("y", {}), /not running/);
});

test("the session log maps pi messages to DSH events with dense seqs that survive a restart", () => {
	const entries: { type: string; customType?: string; data?: unknown }[] = [];
	const sent: SessionEvent[] = [];
	const store = { entries: () => entries, append: (t: string, d: unknown) => entries.push({ type: "custom", customType: t, data: d }) };
	const log = new SessionLog("s", birthHeader({ timestamp: "2026-12-01T09:00:00.000Z" }), store, (_s, ev) => sent.push(ev));
	log.startTurn();
	log.startStep();
	log.message({ role: "user", content: "hi" });
	log.message({ role: "assistant", content: [{ type: "thinking", thinking: "t" }, { type: "toolCall", id: "call_1|fc_1", name: "ls", arguments: { a: 1 } }], provider: "github-copilot", model: "m" });
	log.message({ role: "toolResult", toolCallId: "call_1|fc_1", content: [{ type: "text", text: "a.go" }] });
	log.endStep();
	log.endTurn({ kind: "completed" });
	assert.deepEqual(sent.map((e) => e.type), ["turn/start", "step/start", "user/message", "assistant/message", "tool/call", "tool/result", "step/end", "turn/end"]);
	assert.deepEqual(sent.map((e) => e.seq), [0, 1, 2, 3, 4, 5, 6, 7]);
	assert.deepEqual(sent[5].sourceEventSeqs, [4]);
	assert.equal((sent[4].data as { arguments: string }).arguments, '{"a":1}');
	const again = new SessionLog("s", birthHeader(null), store, () => {});
	assert.equal(again.turn, 1);
	assert.equal(again.turnOpen, false);
	assert.equal(again.startTurn(), 2);
	assert.equal(entries.length, 9);
	assert.deepEqual(again.read(7, 8).events.map((e) => e.type), ["turn/end", "turn/start"]);
});

test("birth evidence: a parent session is seeded, an unreadable timestamp is unknown", () => {
	assert.deepEqual(birthHeader({ timestamp: "2026-12-01T09:00:00.000Z" }), { createdAt: Date.parse("2026-12-01T09:00:00.000Z"), isSeeded: false });
	assert.equal(birthHeader({ timestamp: "x", parentSession: "/p.jsonl" }).isSeeded, true);
	assert.equal(birthHeader(undefined).createdAt, 0);
});

test("failure reads pi's error text as status and a bounded body", () => {
	assert.deepEqual(failure('github-copilot API error (400): {"code":"invalid_encrypted_content"}').status, 400);
	assert.equal(failure("400 input item ID does not belong to this connection").status, 400);
	assert.equal(failure("fetch failed").status, 0);
	assert.ok(Buffer.byteLength(failure("é".repeat(10000)).errorBody) <= 8192);
});

test("the account is a digest of the stable credential, never the credential", async () => {
	const oauth = { authStorage: { get: () => ({ type: "oauth", refresh: "r1", access: "a1" }), getApiKey: async () => "a1" } };
	const rotated = { authStorage: { get: () => ({ type: "oauth", refresh: "r1", access: "a2" }), getApiKey: async () => "a2" } };
	const env = { runtime: { credentials: { read: async () => undefined } }, getApiKeyForProvider: async () => "tok" };
	const a = await accountDigest(oauth, "github-copilot");
	assert.equal(a, await accountDigest(rotated, "github-copilot"));
	assert.match(a ?? "", /^[0-9a-f]{64}$/);
	assert.notEqual(await accountDigest(env, "github-copilot"), a);
	assert.ok(!(a ?? "").includes("r1"));
	assert.equal(await accountDigest({ authStorage: { get: () => undefined, getApiKey: async () => undefined } }, "openai"), undefined);
});

test("the binary: CONTINUITY_BIN, else the platform package, else PATH", () => {
	const dir = mkdtempSync(join(tmpdir(), "continuity-locate-"));
	const bin = join(dir, "continuity");
	writeFileSync(bin, "");
	assert.equal(locateBinary({ CONTINUITY_BIN: bin }), bin);
	assert.throws(() => locateBinary({ CONTINUITY_BIN: join(dir, "missing") }), /CONTINUITY_BIN=/);
	const pkg = join(dir, "node_modules", ...platformPackage().split("/"));
	mkdirSync(join(pkg, "bin"), { recursive: true });
	writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: platformPackage(), version: "0.0.0" }));
	writeFileSync(join(pkg, "bin", "continuity"), "");
	assert.equal(locateBinary({}, join(dir, "index.js")), join(pkg, "bin", "continuity"));
	assert.equal(locateBinary({ PATH: dir }, join(tmpdir(), "none", "index.js")), bin);
	assert.throws(() => locateBinary({ PATH: "" }, join(tmpdir(), "none", "index.js")), /not found/);
});
