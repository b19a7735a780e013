// Unit tests of the transition card and the successor banner (card.ts):
// their lines from the views' fields in both locales, and the block pi's
// TUI draws, which must never be wider than the width it is given (pi
// refuses such a line). Run with node --experimental-strip-types --test.
import assert from "node:assert/strict";
import { test } from "node:test";
import { bannerLines, block, type Card, cardLines, wrap } from "../src/card.ts";
import { Texts } from "../src/texts.ts";

const card: Card = {
	successorId: "s-1",
	successorTitle: "Plan the v2 migration",
	edgeId: "edge-7",
	reason: "topic_change",
	at: Date.UTC(2026, 11, 1, 10, 54),
	carried: { sources: 4, omitted: 2 },
};

/** width counts terminal cells: Han characters take two. */
function width(s: string): number {
	let n = 0;
	for (const ch of s.replace(/\x1b\[[0-9;]*m/g, "")) n += /\p{Script=Han}|[\u3000-\u303f\uff00-\uff60]/u.test(ch) ? 2 : 1;
	return n;
}

test("the card names the successor, reason, what was carried and the commands of its actions", () => {
	const en = new Texts("en");
	const lines = cardLines(en, card);
	assert.equal(lines[0], "Continued in “Plan the v2 migration”");
	assert.match(lines[1], /^Topic changed · /);
	assert.equal(lines[2], "Carried the current request, the handoff and 4 source references.");
	assert.equal(lines[3], "2 more sources stay linked but were not loaded.");
	assert.equal(lines[4], "Open continuation: /continuity open · Inspect handoff: /continuity handoff edge-7");
});

test("on pi 0.73 the card says what to press instead of an open action", () => {
	const lines = cardLines(new Texts("en"), { ...card, carried: { sources: 1, omitted: 0 } }, "/continuity-successor s-1");
	assert.equal(lines.length, 5);
	assert.equal(lines[2], "Carried the current request, the handoff and 1 source reference.");
	assert.match(lines[3], /Press Enter to open the continuation/);
	assert.equal(lines[4], "/continuity-successor s-1");
});

test("one source, and one more left linked, are said in the singular; Chinese has one form", () => {
	const one = { ...card, carried: { sources: 1, omitted: 1 } };
	const en = cardLines(new Texts("en"), one);
	assert.equal(en[2], "Carried the current request, the handoff and 1 source reference.");
	assert.equal(en[3], "1 more source stays linked but was not loaded.");
	assert.equal(cardLines(new Texts("en"), { ...card, carried: { sources: 0, omitted: 0 } })[2], "Carried the current request, the handoff and 0 source references.");
	const zh = new Texts("zh-CN");
	assert.equal(cardLines(zh, one)[2], zh.t("continuation.card.carried", { count: 1 }));
	assert.equal(cardLines(zh, one)[3], zh.t("continuation.card.omitted", { count: 1 }));
});

test("the banner names the predecessor (its id when untitled) and the back and view commands, in Chinese too", () => {
	const b = { predecessorId: "p-1", edgeId: "edge-7", reason: "user_request", at: card.at };
	const zh = new Texts("zh-CN");
	const lines = bannerLines(zh, b);
	assert.equal(lines[0], zh.t("continuation.banner.title", { title: "p-1" }));
	assert.ok(lines[1].startsWith(zh.t("continuation.reason.user_request")));
	assert.equal(lines[2], `${zh.t("continuation.banner.back")}: /continuity back · ${zh.t("continuation.banner.view")}: /continuity handoff`);
	assert.equal(bannerLines(new Texts("en"), { ...b, predecessorTitle: "Rethink compaction" })[0], "Continued from “Rethink compaction”");
});

test("the block fits every width, wide characters counted twice, and keeps every word", () => {
	const theme = { fg: (_c: string, s: string) => `\x1b[2m${s}\x1b[0m`, bold: (s: string) => s };
	for (const texts of [new Texts("en"), new Texts("zh-CN")]) {
		const lines = cardLines(texts, card);
		for (const w of [1, 7, 20, 33, 80, 160]) {
			const out = block(lines, theme).render(w);
			for (const l of out) assert.ok(width(l) <= w, `width ${w}: ${JSON.stringify(l)} is ${width(l)} cells`);
			if (w >= 20) {
				const joined = out.map((l) => l.replace(/\x1b\[[0-9;]*m/g, "")).join(" ");
				for (const word of lines.join(" ").split(" ")) assert.ok(w < 40 || joined.includes(word), `width ${w} lost ${word}`);
			}
		}
	}
	assert.deepEqual(wrap("aaa bbb ccc", 7), ["aaa bbb", "ccc"]);
	assert.deepEqual(wrap("abcdefgh", 3), ["abc", "def", "gh"]);
	assert.deepEqual(wrap("已在中继续", 4), ["已在", "中继", "续"]);
});
