// Unit tests of managed context in pi's compaction (managed.ts): which
// decision becomes pi's summary, and that the notice of pi's own
// compaction names the real reason — a RESEED whose query is no smaller
// than the history says that, not that the task could not be named.
// Run with node --experimental-strip-types --test.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import { reseedProblems, renderBoundary } from "../src/boundary.ts";
import { managedCompaction } from "../src/managed.ts";
import type { Peer } from "../src/rpc.ts";
import { Texts } from "../src/texts.ts";

const en = new Texts("en");
const prep = { firstKeptEntryId: "e-9", tokensBefore: 12_000 };

/** decision is a BoundaryDecision record of the bracket opened at seq 4. */
function decision(over: Record<string, unknown>) {
	return {
		id: 7, decision: "RESEED", reason: "compaction_threatens_pin", trigger: "compaction_start", throughEventId: "4",
		pin: { digest: "d", eventId: "0", recoverable: true }, kept: [], dropped: [], at: "2026-12-02T05:00:00Z", ...over,
	};
}

/** run decides a compaction against a plugin whose continuity/boundary answers d, and returns what was said. */
async function run(d: unknown) {
	const said: { text: string; level?: string }[] = [];
	const peer = {
		request: async (method: string, params: { namespace?: string; method?: string }) => {
			assert.equal(method, "remote/invoke");
			assert.deepEqual([params.namespace, params.method], ["continuity", "boundary"]);
			return { ok: true, value: d };
		},
	} as unknown as Peer;
	const deps = { texts: en, connect: async () => ({ peer }), say: (_c: ExtensionContext, text: string, level?: "info" | "warning") => void said.push({ text, level }) };
	const result = await managedCompaction(deps, {} as ExtensionContext, "s-1", 4, prep);
	return { result, said };
}

test("a RESEED refused as not smaller says so, not that the task could not be named", async () => {
	const { result, said } = await run(decision({ reseed: { complete: false, problems: ["not_smaller"] } }));
	assert.equal(result, undefined);
	assert.equal(said.length, 1);
	assert.equal(said[0].text, `${en.t("compaction.own")} ${en.t("boundary.reseed.not_smaller")}`);
	assert.doesNotMatch(said[0].text, /could not name the task/);
});

test("a RESEED that could not stand alone says so, and both when it was also not smaller", async () => {
	const alone = await run(decision({ reseed: { complete: false, problems: ["next_action_missing"] } }));
	assert.equal(alone.said[0].text, `${en.t("compaction.own")} ${en.t("boundary.reseed.incomplete")}`);
	const both = await run(decision({ reseed: { complete: false, problems: ["pin_not_in_query", "not_smaller"] } }));
	assert.equal(both.said[0].text, `${en.t("compaction.own")} ${en.t("boundary.reseed.incomplete")} ${en.t("boundary.reseed.not_smaller")}`);
});

test("a complete RESEED of this boundary is pi's summary; another boundary's is not", async () => {
	const d = decision({ reseed: { complete: true, problems: [], projection: { query: "Task [event 0]: fix the parser" } } });
	const { result, said } = await run(d);
	assert.deepEqual(result, { compaction: { summary: "Task [event 0]: fix the parser", ...prep, details: { continuity: { decisionId: 7, reason: "compaction_threatens_pin" } } } });
	assert.match(said[0].text, new RegExp(en.t("compaction.reseed").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")));
	const other = await run({ ...d, throughEventId: "3" });
	assert.equal(other.result, undefined);
	assert.equal(other.said[0].text, `${en.t("compaction.own")} (${en.t("compaction.undecided")})`);
});

test("/continuity context names the same reason, with the problems step 7 found", () => {
	const d = decision({ reseed: { complete: false, problems: ["not_smaller"] } });
	const lines = renderBoundary(en, d as never).split("\n");
	assert.equal(lines.at(-1), `${en.t("boundary.reseed.not_smaller")} (not_smaller)`);
	const zh = new Texts("zh-CN");
	assert.equal(reseedProblems(zh, ["not_smaller"]), zh.t("boundary.reseed.not_smaller"));
	assert.notEqual(reseedProblems(zh, ["not_smaller"]), reseedProblems(zh, ["plan_not_traced"]));
});
