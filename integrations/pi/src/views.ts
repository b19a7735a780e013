// The continuation views as a person reads them in pi: the lineage path
// (LineagePath) and the handoff inspector (HandoffInspector), rendered as
// plain lines from the views' typed fields with ui-contract texts, so
// /continuity lineage and /continuity handoff show words, not JSON.
import type { Texts } from "./texts.ts";

/** LineageView is the continuity.lineage value; its path is a LineagePath. */
export interface LineageView {
	path?: { sessions?: { sessionId: string; title?: string; edgeId?: string; reason?: string; at?: number; current: boolean }[] };
}

interface ManifestItem {
	tier: string;
	kind: string;
	sessionId?: string;
	fromEventId?: string;
	toEventId?: string;
	eventId?: string;
	events?: number;
	url?: string;
	path?: string;
	cid?: string;
	relevance?: string;
	tokens: number;
	reason?: string;
}

interface Handoff {
	purpose: string;
	currentRequest: string;
	establishedFacts?: string[];
	decisions?: string[];
	openQuestions?: string[];
	nextActions?: string[];
	cautions?: string[];
}

export interface HandoffView {
	title: string;
	reason: string;
	at: number;
	predecessorId: string;
	handoff: Handoff;
	initiatingEvent: { sessionId: string; eventId: string };
	included: ManifestItem[];
	omitted: ManifestItem[];
	state: { kind: string; key: string; action?: string; revision?: string }[];
}

/** lastEdge is the edge that created the current session, if one did. */
export function lastEdge(v: LineageView): string | undefined {
	return (v.path?.sessions ?? []).find((s) => s.current)?.edgeId;
}

function when(texts: Texts, at: number): string {
	return new Date(at).toLocaleString(texts.locale, { dateStyle: "medium", timeStyle: "short" });
}

/** renderLineage lists the path from the origin to this session, one session a line. */
export function renderLineage(texts: Texts, v: LineageView): string {
	const t = texts.t.bind(texts);
	const lines = [t("continuation.lineage.title")];
	(v.path?.sessions ?? []).forEach((s, i) => {
		const name = s.title ? `“${s.title}”` : s.sessionId;
		const tags = [i === 0 ? t("continuation.lineage.origin") : "", s.current ? t("continuation.lineage.current") : ""].filter(Boolean);
		const how = s.reason ? ` — ${t(`continuation.reason.${s.reason}`)}${s.at ? `, ${when(texts, s.at)}` : ""}` : "";
		lines.push(`${i === 0 ? "  " : "  → "}${name}${tags.length ? ` [${tags.join(", ")}]` : ""}${how}`);
	});
	return lines.join("\n");
}

/** source names one manifest item: which events, resource or memory, and its size. */
function source(texts: Texts, item: ManifestItem): string {
	const t = texts.t.bind(texts);
	let what: string;
	switch (item.kind) {
		case "session_events":
			if (item.fromEventId === item.toEventId) {
				what = `${item.sessionId ?? ""} #${item.fromEventId ?? "?"}`;
				break;
			}
			what = `${item.sessionId ?? ""} #${item.fromEventId ?? "?"}–#${item.toEventId ?? "?"}`;
			if (item.events) what += ` (${texts.counted("continuation.handoff.events", item.events)})`;
			break;
		case "session_event":
			what = `${item.sessionId ?? ""} #${item.eventId ?? "?"}`;
			break;
		default:
			what = item.url ?? item.path ?? item.cid ?? item.kind;
	}
	// An omitted item costs nothing in the successor; its size would only mislead.
	const parts = [item.tokens > 0 ? `${what}, ${texts.counted("continuation.handoff.tokens", item.tokens)}` : what];
	if (item.relevance) parts.push(`“${item.relevance}”`);
	if (item.reason) parts.push(t(`continuation.handoff.cold.${item.reason}`));
	return `  - ${parts.join(" — ")}`;
}

/** renderHandoff shows the handoff inspector: why and when, what was carried, and which sources are loaded or cold. */
export function renderHandoff(texts: Texts, v: HandoffView): string {
	const t = texts.t.bind(texts);
	const h = v.handoff;
	const lines = [
		`${t("continuation.handoff.title")}: “${v.title}” — ${t(`continuation.reason.${v.reason}`)}`,
		`${t("continuation.handoff.at")}: ${when(texts, v.at)}`,
		t("continuation.handoff.note"),
		"",
		`${t("continuation.handoff.purpose")}: ${h.purpose}`,
		`${t("continuation.handoff.request")}: ${h.currentRequest}`,
	];
	const lists: [string, string[] | undefined][] = [
		["continuation.handoff.facts", h.establishedFacts],
		["continuation.handoff.decisions", h.decisions],
		["continuation.handoff.questions", h.openQuestions],
		["continuation.handoff.next", h.nextActions],
		["continuation.handoff.cautions", h.cautions],
	];
	for (const [key, items] of lists) {
		if (items?.length) lines.push(`${t(key)}:`, ...items.map((s) => `  - ${s}`));
	}
	lines.push("", t("continuation.handoff.initiating", { eventId: v.initiatingEvent.eventId }));
	lines.push(`${t("continuation.handoff.included")}:`, ...v.included.map((i) => source(texts, i)));
	if (v.omitted.length) lines.push(`${t("continuation.handoff.omitted")}:`, ...v.omitted.map((i) => source(texts, i)));
	if (v.state.length) {
		const item = (s: HandoffView["state"][number]) =>
			`  - ${t(`continuation.state.${s.kind}`)} ${s.key}${s.action ? ` (${t(`continuation.state.${s.action}`)})` : ""}`;
		lines.push(`${t("continuation.handoff.state")}:`, ...v.state.map(item));
	}
	return lines.join("\n");
}
