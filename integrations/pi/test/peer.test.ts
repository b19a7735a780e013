// The peer's lifetimes: a call's abort listener lives as long as the call,
// and a notification handler that fails is reported once and breaks
// nothing after it.
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { Peer } from "../src/rpc.ts";

function pair(onFailure?: (method: string, err: unknown) => void) {
	const toPlugin = new PassThrough();
	const fromPlugin = new PassThrough();
	const peer = new Peer(toPlugin, fromPlugin, onFailure);
	const sent: { id?: number; method?: string; params?: { id?: number } }[] = [];
	toPlugin.on("data", (b: Buffer) => sent.push(...b.toString("utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l))));
	return { peer, sent, reply: (s: string) => fromPlugin.write(s) };
}

const tick = () => new Promise((r) => setImmediate(r));

test("many calls with one AbortSignal leave no listener behind once they settle", async () => {
	const { peer, reply } = pair();
	const signal = new AbortController().signal;
	const calls = Array.from({ length: 200 }, (_, i) => peer.request("x", { i }, signal));
	assert.equal(getEventListeners(signal, "abort").length, 200, "each waiting call listens");
	reply(calls.map((_, i) => `{"jsonrpc":"2.0","id":${i + 1},"result":{}}\n`).join(""));
	reply('{"jsonrpc":"2.0","id":1,"result":{}}\n'); // a stray second answer changes nothing
	await Promise.all(calls);
	assert.equal(getEventListeners(signal, "abort").length, 0);
	const failing = [peer.request("y", {}, signal), peer.request("z", {}, signal)];
	reply('{"jsonrpc":"2.0","id":201,"error":{"code":-32001,"message":"no"}}\n');
	await assert.rejects(failing[0]);
	assert.equal(getEventListeners(signal, "abort").length, 1);
	peer.close("exited (0)");
	await assert.rejects(failing[1], /not running/);
	assert.equal(getEventListeners(signal, "abort").length, 0, "a call failed by close stops listening too");
});

test("an abort cancels the calls that wait, and only those", async () => {
	const { peer, sent, reply } = pair();
	const ac = new AbortController();
	const done = peer.request("x", {}, ac.signal);
	const waiting = peer.request("y", {}, ac.signal);
	reply('{"jsonrpc":"2.0","id":1,"result":{}}\n');
	await done;
	ac.abort();
	await tick();
	assert.deepEqual(
		sent.filter((m) => m.method === "$/cancelRequest").map((m) => m.params?.id),
		[2],
	);
	reply('{"jsonrpc":"2.0","id":2,"result":{}}\n');
	await waiting;
});

test("a throwing notification handler is reported once, by name, and breaks neither the read loop nor other handlers", async () => {
	const failures: [string, string][] = [];
	const { peer, reply } = pair((method, err) => failures.push([method, (err as Error).message]));
	const seen: unknown[] = [];
	let calls = 0;
	peer.onNotification("remote/event", () => {
		calls++;
		throw new Error(`broken ${calls}`);
	});
	peer.onNotification("other", (p) => {
		seen.push(p.n);
	});
	peer.onNotification("later", async () => {
		throw new Error("rejected");
	});
	const answered = peer.request("x", {});
	// One read holding all of it: the frames after a failure still count.
	reply(
		'{"jsonrpc":"2.0","method":"remote/event","params":{}}\n{"jsonrpc":"2.0","method":"other","params":{"n":1}}\n' +
			'{"jsonrpc":"2.0","method":"remote/event","params":{}}\n{"jsonrpc":"2.0","id":1,"result":{"ok":true}}\n' +
			'{"jsonrpc":"2.0","method":"later","params":{}}\n{"jsonrpc":"2.0","method":"other","params":{"n":2}}\n',
	);
	assert.deepEqual(await answered, { ok: true });
	reply('{"jsonrpc":"2.0","method":"other","params":{"n":3}}\n');
	await tick();
	assert.deepEqual(seen, [1, 2, 3]);
	assert.equal(calls, 2, "the handler still runs for later notifications");
	assert.deepEqual(failures, [
		["remote/event", "broken 1"],
		["later", "rejected"],
	]);
});

test("the default report is one stderr line naming the notification", async () => {
	const lines: string[] = [];
	const write = process.stderr.write;
	process.stderr.write = ((s: string) => {
		lines.push(String(s));
		return true;
	}) as typeof process.stderr.write;
	try {
		const { peer, reply } = pair();
		peer.onNotification("remote/event", () => {
			throw new TypeError("x is undefined");
		});
		reply('{"jsonrpc":"2.0","method":"remote/event","params":{}}\n{"jsonrpc":"2.0","method":"remote/event","params":{}}\n');
		await tick();
	} finally {
		process.stderr.write = write;
	}
	assert.equal(lines.length, 1);
	assert.match(lines[0], /^continuity: .*remote\/event notification \(x is undefined\).*please report it/);
});
