// stop() has one deadline for the whole shutdown: the shutdown request,
// the closed stdin and the exit. Run against a fake plugin process that
// answers initialize and then, in one mode, never answers shutdown nor
// exits when its stdin closes.
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { start } from "../src/plugin.ts";

const FAKE = `
const hang = process.env.FAKE_PLUGIN === "hang";
process.on("SIGTERM", () => {}); // only SIGKILL ends the hanging one
let buf = "";
const answer = (id, result) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result }) + "\\n");
process.stdin.setEncoding("utf8");
process.stdin.on("data", (s) => {
	buf += s;
	for (let i = buf.indexOf("\\n"); i >= 0; i = buf.indexOf("\\n")) {
		const m = JSON.parse(buf.slice(0, i));
		buf = buf.slice(i + 1);
		if (m.method === "initialize") answer(m.id, { activation: { state: "ready" }, capabilities: { payloadFilter: { providers: [] }, tools: [] }, pid: process.pid });
		if (m.method === "shutdown") {
			process.stderr.write("shutdown asked\\n");
			if (!hang) answer(m.id, {});
		}
	}
});
process.stdin.on("end", () => {
	if (!hang) process.exit(0);
});
setInterval(() => {}, 1000);
`;

function fakePlugin(): { dir: string; bin: string } {
	const dir = mkdtempSync(join(tmpdir(), "continuity-fake-plugin-"));
	writeFileSync(join(dir, "fake.cjs"), FAKE);
	const bin = join(dir, "continuity");
	writeFileSync(bin, `#!/bin/sh\nexec "${process.execPath}" "${join(dir, "fake.cjs")}" "$@"\n`);
	chmodSync(bin, 0o755);
	return { dir, bin };
}

function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

async function run(mode: "hang" | "answer", deadlineMs: number) {
	const { dir, bin } = fakePlugin();
	try {
		const env = { PATH: process.env.PATH, CONTINUITY_BIN: bin, CONTINUITY_DATA_DIR: dir, FAKE_PLUGIN: mode };
		const s = await start("test", () => {}, env, { stopDeadlineMs: deadlineMs });
		const pid = (s.init as unknown as { pid: number }).pid;
		assert.ok(pid > 0 && alive(pid), "the fake plugin runs");
		const t0 = performance.now();
		await s.stop();
		const took = performance.now() - t0;
		await s.stop(); // a second stop is the first one's
		return { took, pid, tail: s.stderrTail(), closed: s.peer.isClosed };
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

// A stop without a deadline would wait forever: the timeout makes that a failure.
test("a plugin that never answers shutdown is killed at the deadline", { timeout: 10_000 }, async () => {
	const r = await run("hang", 400);
	assert.match(r.tail, /shutdown asked/);
	assert.ok(r.took >= 350, `stop returned after ${r.took} ms, before the deadline`);
	assert.ok(r.took < 2000, `stop took ${r.took} ms for a 400 ms deadline`);
	assert.equal(alive(r.pid), false, "the plugin was killed");
	assert.equal(r.closed, true);
});

test("a plugin that answers shutdown and exits stops well within the deadline", { timeout: 10_000 }, async () => {
	const r = await run("answer", 10_000);
	assert.match(r.tail, /shutdown asked/);
	assert.ok(r.took < 3000, `stop took ${r.took} ms`);
	assert.equal(alive(r.pid), false);
});
