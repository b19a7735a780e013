// The transition card that ends a predecessor and the banner a successor
// starts with (ui-contract view/TransitionCard and view/SuccessorBanner),
// as lines of ui-contract texts. pi has no buttons in its transcript, so
// each action is shown with the command that takes it. Both are custom
// messages pi keeps in the session file and draws with the renderer below;
// the extension's context handler (places.ts) keeps them from the model.
import type { Texts } from "./texts.ts";

/** CARD_MESSAGE and BANNER_MESSAGE are the custom types of the card and the banner. */
export const CARD_MESSAGE = "continuity-card";
export const BANNER_MESSAGE = "continuity-banner";

/** The commands that take the card's and the banner's actions. */
export const OPEN_COMMAND = "/continuity open";
export const BACK_COMMAND = "/continuity back";
export const HANDOFF_COMMAND = "/continuity handoff";

/** Card is the part of a TransitionCard the card shows. */
export interface Card {
	successorId: string;
	successorTitle: string;
	edgeId: string;
	reason: string;
	at: number;
	carried: { sources: number; omitted: number };
}

/** Banner is the part of a SuccessorBanner the banner shows. */
export interface Banner {
	predecessorId: string;
	predecessorTitle?: string;
	edgeId: string;
	reason: string;
	at: number;
}

function time(texts: Texts, at: number): string {
	return new Date(at).toLocaleString(texts.locale, { dateStyle: "medium", timeStyle: "short" });
}

/**
 * cardLines is the transition card. manual is the command pi 0.73 needs
 * the person to send (it cannot create the successor by itself): the card
 * then says what to press instead of offering an open action that would
 * find no session yet.
 */
export function cardLines(texts: Texts, c: Card, manual?: string): string[] {
	const t = texts.t.bind(texts);
	const lines = [
		t("continuation.card.title", { title: c.successorTitle }),
		`${t(`continuation.reason.${c.reason}`)} · ${time(texts, c.at)}`,
		texts.counted("continuation.card.carried", c.carried.sources),
	];
	if (c.carried.omitted > 0) lines.push(texts.counted("continuation.card.omitted", c.carried.omitted));
	if (manual) lines.push(t("continuation.card.manual"), manual);
	else lines.push(`${t("continuation.card.open")}: ${OPEN_COMMAND} · ${t("continuation.card.inspect")}: ${HANDOFF_COMMAND} ${c.edgeId}`);
	return lines;
}

/** bannerLines is the successor banner; an untitled predecessor is named by its id. */
export function bannerLines(texts: Texts, b: Banner): string[] {
	const t = texts.t.bind(texts);
	return [
		t("continuation.banner.title", { title: b.predecessorTitle || b.predecessorId }),
		`${t(`continuation.reason.${b.reason}`)} · ${time(texts, b.at)}`,
		`${t("continuation.banner.back")}: ${BACK_COMMAND} · ${t("continuation.banner.view")}: ${HANDOFF_COMMAND}`,
	];
}

/** The theme pi hands a message renderer, as far as this uses it. */
export interface Theme {
	fg(color: string, text: string): string;
	bold(text: string): string;
}

/** A pi-tui component: lines no wider than width. */
export interface Block {
	render(width: number): string[];
	invalidate(): void;
}

/**
 * block draws lines between two rules, the first line bold in the accent
 * colour, the others muted, wrapped to the width pi gives (pi's TUI refuses
 * a line wider than the terminal). It is built here rather than from
 * pi-tui's Text so that the extension keeps importing nothing from pi.
 */
export function block(lines: string[], theme: Theme): Block {
	return {
		render(width: number): string[] {
			const w = Math.max(1, width);
			const rule = theme.fg("borderMuted", "─".repeat(w));
			const out = [rule];
			lines.forEach((line, i) => {
				for (const part of wrap(line, w)) out.push(i === 0 ? theme.fg("accent", theme.bold(part)) : theme.fg("muted", part));
			});
			out.push(rule);
			return out;
		},
		invalidate() {},
	};
}

/** cells is a code point's width in a terminal: wide East Asian and emoji take two. */
function cells(cp: number): number {
	if (cp < 0x1100) return 1;
	const wide =
		cp <= 0x115f ||
		(cp >= 0x2e80 && cp <= 0xa4cf) ||
		(cp >= 0xac00 && cp <= 0xd7a3) ||
		(cp >= 0xf900 && cp <= 0xfaff) ||
		(cp >= 0xfe30 && cp <= 0xfe4f) ||
		(cp >= 0xff00 && cp <= 0xff60) ||
		(cp >= 0xffe0 && cp <= 0xffe6) ||
		(cp >= 0x1f300 && cp <= 0x1faff) ||
		(cp >= 0x20000 && cp <= 0x3fffd);
	return wide ? 2 : 1;
}

/** wrap breaks text into lines of at most width cells, at spaces where it can. */
export function wrap(text: string, width: number): string[] {
	const out: string[] = [];
	let line = "";
	let used = 0;
	let lastSpace = -1; // index in line just after the last space
	for (let ch of text) {
		let c = cells(ch.codePointAt(0) ?? 0);
		if (c > width) [ch, c] = ["?", 1]; // a wide character cannot fit a one-cell terminal
		if (used + c > width) {
			if (lastSpace > 0 && ch !== " ") {
				out.push(line.slice(0, lastSpace).trimEnd());
				line = line.slice(lastSpace);
			} else {
				out.push(line.trimEnd());
				line = "";
			}
			used = [...line].reduce((n, x) => n + cells(x.codePointAt(0) ?? 0), 0);
			lastSpace = -1;
			if (ch === " " && line === "") continue;
		}
		line += ch;
		used += c;
		if (ch === " ") lastSpace = line.length;
	}
	out.push(line);
	return out;
}
