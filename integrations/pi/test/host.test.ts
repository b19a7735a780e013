// The host side pi serves (host.ts) keeps what it remembers in the
// CreatedSessions it is given: session/create is idempotent per key within
// one, and two extensions never see each other's successors.
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { CreatedSessions, successorId } from "../src/created.ts";
import { type HostDeps, serveHost, SUCCESSOR_COMMAND } from "../src/host.ts";
import { Peer } from "../src/rpc.ts";

/** host serves one fake plugin connection and returns a way to call it as the plugin does. */
function host(created: CreatedSessions) {
	const toPlugin = new PassThrough();
	const fromPlugin = new PassThrough();
	const peer = new Peer(toPlugin, fromPlugin);
	const queued: string[] = [];
	const deps: HostDeps = { known: () => undefined, isIdle: () => true, created, queue: (t) => queued.push(t), remoteEvent: () => {} };
	serveHost(peer, deps);
	const replies = new Map<number, { result?: { sessionId: string; created: boolean }; error?: { code: number } }>();
	toPlugin.on("data", (b: Buffer) => {
		for (const l of b.toString("utf8").split("\n").filter(Boolean)) replies.set(JSON.parse(l).id, JSON.parse(l));
	});
	let id = 0;
	const call = async (method: string, params: unknown) => {
		const n = ++id;
		fromPlugin.write(`${JSON.stringify({ jsonrpc: "2.0", id: n, method, params })}\n`);
		for (let i = 0; i < 50 && !replies.has(n); i++) await new Promise((r) => setImmediate(r));
		return replies.get(n)!;
	};
	return { call, queued };
}

const create = (key: string) => ({ idempotencyKey: key, predecessorId: "p", title: "T", header: { isSeeded: true }, context: { sections: [] } });

test("session/create makes one successor per key and queues its command once", async () => {
	const created = new CreatedSessions();
	const h = host(created);
	const first = await h.call("session/create", create("k1"));
	const again = await h.call("session/create", create("k1"));
	assert.deepEqual(first.result, { sessionId: successorId("k1"), created: true });
	assert.deepEqual(again.result, { sessionId: successorId("k1"), created: false });
	assert.deepEqual(h.queued, [`/${SUCCESSOR_COMMAND} ${successorId("k1")}`]);
	assert.equal(created.get(successorId("k1"))?.title, "T");
	assert.equal(created.header(successorId("k1"))?.isSeeded, true);
	assert.equal((await h.call("session/create", { idempotencyKey: "k2" })).error?.code, -32602);
	assert.equal((await h.call("session/read", { sessionId: "s", fromSeq: 0, toSeq: 1 })).error?.code, -32001);
});

test("two extensions' hosts share nothing", async () => {
	const a = host(new CreatedSessions());
	const bCreated = new CreatedSessions();
	const b = host(bCreated);
	await a.call("session/create", create("k"));
	assert.equal(bCreated.get(successorId("k")), undefined);
	assert.deepEqual((await b.call("session/create", create("k"))).result, { sessionId: successorId("k"), created: true });
	assert.equal(b.queued.length, 1);
});
