// Unit tests of what the extension renders for a person and of the
// compaction bracket's edges that pi itself cannot be made to produce in a
// test (pi 0.73 leaving a bracket unreported, a 1.x abort). Run with node
// --experimental-strip-types --test (integrations/pi/e2e runs them).
import assert from "node:assert/strict";
import { test } from "node:test";
import { compacted, compactionFailed, replacedThrough, startCompaction } from "../src/compaction.ts";
import { birthHeader, type SessionEvent, SessionLog } from "../src/events.ts";
import { Texts } from "../src/texts.ts";
import { type HandoffView, renderHandoff, renderLineage } from "../src/views.ts";

const view: HandoffView = {
	title: "Plan v2",
	reason: "context_pressure",
	at: Date.UTC(2026, 11, 1, 9, 30),
	predecessorId: "p",
	handoff: { purpose: "Plan v2", currentRequest: "list the steps", cautions: ["keep the v1 schema"] },
	initiatingEvent: { sessionId: "p", eventId: "14" },
	included: [{ tier: "recent", kind: "session_event", sessionId: "p", eventId: "9", tokens: 120 }],
	omitted: [{ tier: "excerpt", kind: "session_events", sessionId: "p", fromEventId: "1", toEventId: "4", events: 4, tokens: 0, reason: "budget" }],
	state: [{ kind: "plan", key: "plan", action: "carry", revision: "3" }],
};

test("the handoff inspector in Simplified Chinese: every label from the texts, cold sources with their reason", () => {
	const out = renderHandoff(new Texts("zh-CN"), view);
	const zh = new Texts("zh-CN");
	for (const want of [
		`${zh.t("continuation.handoff.title")}: “Plan v2” — ${zh.t("continuation.reason.context_pressure")}`,
		`${zh.t("continuation.handoff.cautions")}:\n  - keep the v1 schema`,
		`${zh.t("continuation.handoff.included")}:\n  - p #9, ${zh.t("continuation.handoff.tokens", { count: 120 })}`,
		`${zh.t("continuation.handoff.omitted")}:\n  - p #1–#4 (${zh.t("continuation.handoff.events", { count: 4 })}) — ${zh.t("continuation.handoff.cold.budget")}`,
		`${zh.t("continuation.handoff.state")}:\n  - ${zh.t("continuation.state.plan")} plan (${zh.t("continuation.state.carry")})`,
	]) {
		assert.ok(out.includes(want), `missing ${JSON.stringify(want)} in\n${out}`);
	}
	assert.ok(!/[A-Za-z]{4,} [a-z]{4,}/.test(out.replace(/keep the v1 schema|list the steps/g, "")), `English left in\n${out}`);
});

test("a source of one token or a range of one event reads in the singular in English", () => {
	const one: HandoffView = {
		...view,
		included: [{ tier: "recent", kind: "session_event", sessionId: "p", eventId: "9", tokens: 1 }],
		omitted: [{ tier: "excerpt", kind: "session_events", sessionId: "p", fromEventId: "1", toEventId: "4", events: 1, tokens: 0, reason: "budget" }],
	};
	const out = renderHandoff(new Texts("en"), one);
	assert.ok(out.includes("p #9, 1 token\n") || out.endsWith("p #9, 1 token"), `no singular token in\n${out}`);
	assert.ok(out.includes("p #1–#4 (1 event)"), `no singular event in\n${out}`);
	assert.ok(!/\b1 (tokens|events)\b/.test(out), `plural after 1 in\n${out}`);
	const many = renderHandoff(new Texts("en"), view);
	assert.ok(many.includes("120 tokens") && many.includes("(4 events)"), `plural lost in\n${many}`);
});

test("the lineage path marks the origin and this session, and a successor's reason", () => {
	const out = renderLineage(new Texts("en"), {
		path: {
			sessions: [
				{ sessionId: "o", current: false },
				{ sessionId: "s", title: "Plan v2", edgeId: "e", reason: "user_request", at: Date.UTC(2026, 11, 1), current: true },
			],
		},
	});
	assert.match(out, /^Continuation path\n {2}o \[Origin\]\n {2}→ “Plan v2” \[This session\] — You asked to continue, /);
});

function log() {
	const sent: SessionEvent[] = [];
	const entries: { type: string; customType?: string; data?: unknown }[] = [];
	const store = { entries: () => entries, append: (t: string, d: unknown) => entries.push({ type: "custom", customType: t, data: d }) };
	return { sent, log: new SessionLog("s", birthHeader(null), store, (_s, ev) => sent.push(ev)) };
}

test("a bracket pi never reported on ends, failed, when the next one starts; an abort ends as cancelled", () => {
	const { sent, log: l } = log();
	startCompaction(l, -1);
	startCompaction(l, -1);
	compactionFailed(l, true);
	assert.deepEqual(sent.map((e) => e.type), ["compaction/start", "compaction/end", "compaction/start", "compaction/end"]);
	assert.equal(sent[1].data.compactionId, sent[0].data.compactionId);
	assert.ok(sent[1].data.error, "the unreported bracket must end with an error, never as completed");
	assert.equal(sent[3].data.compactionId, sent[2].data.compactionId);
	assert.match(String((sent[3].data.error as { message: string }).message), /abort/);
	compacted(l, "summary");
	assert.equal(sent.length, 4, "a summary for no open bracket sends nothing");
});

test("a completed compaction inside a turn carries the turn, then the checkpoint, then the end", () => {
	const { sent, log: l } = log();
	l.startTurn();
	startCompaction(l, 0);
	compacted(l, "the summary");
	const [, start, check, end] = sent;
	assert.deepEqual([start.type, check.type, end.type], ["compaction/start", "user/message", "compaction/end"]);
	assert.deepEqual(check.surfaceOp, { op: "replace", startSeq: 0, endSeq: 0 });
	assert.equal(start.data.turn, 1);
	assert.deepEqual(check.data.source, { kind: "compact-checkpoint", compactionId: start.data.compactionId });
	assert.equal(end.data.error, undefined);
});

test("the summary replaces the events before the first entry pi keeps", () => {
	const ev = (seq: number) => ({ type: "custom", customType: "continuity-event", data: { seq } });
	const entries = [ev(0), { type: "message", id: "m1" }, ev(1), ev(2), { type: "message", id: "m2" }, ev(3)];
	assert.equal(replacedThrough(entries, "m2"), 2);
	assert.equal(replacedThrough(entries, "m1"), 0);
	assert.equal(replacedThrough([{ type: "message", id: "m1" }, ev(0)], "m1"), -1);
});
