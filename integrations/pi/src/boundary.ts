// Managed context where the person looks: `/continuity context` renders
// the session's last boundary decision (the continuity/boundary Remote's
// record, ui-contract view BoundaryDecision), and the footer marks a RESEED
// as the continuity.boundary remote event announces it. Items are named by
// event, kind and subject, as the record names them, never by text.
import type { Texts } from "./texts.ts";

/** BOUNDARY_STATUS is the footer slot of the last boundary decision. */
export const BOUNDARY_STATUS = "continuity-boundary";

interface ItemRef {
	eventId: string;
	kind: string;
	subject?: string;
	why: string;
	supersededBy?: string;
}

/** The parts of a BoundaryDecision record the view reads. */
export interface BoundaryDecision {
	decision: "APPEND" | "RESEED";
	reason: string;
	trigger: string;
	pin: { digest: string | null; eventId: string | null; source?: string; recoverable: boolean; problem?: string };
	kept: ItemRef[];
	dropped: ItemRef[];
	reseed?: { complete: boolean; problems: string[]; projection?: { query?: string } };
	throughEventId?: string;
	at: string;
}

/** The args of a continuity.boundary remote event. */
export interface BoundaryEvent {
	agentId: string;
	decision: "APPEND" | "RESEED";
	reason: string;
	trigger: string;
	complete?: boolean;
}

function item(r: ItemRef): string {
	const subject = r.subject ? ` ${r.subject}` : "";
	const by = r.supersededBy ? ` → ${r.supersededBy}` : "";
	return `  · ${r.eventId} ${r.kind}${subject} (${r.why}${by})`;
}

/** decisionLine is the decision and why, as one line. */
export function decisionLine(texts: Texts, decision: string, reason: string): string {
	const t = texts.t.bind(texts);
	return `${t("boundary.title")}: ${decision} — ${t(`boundary.reason.${reason}`)} ${t(`boundary.decision.${decision}`)}`;
}

/**
 * reseedProblems says why a RESEED's rebuilt context is not used, from
 * the problems step 7 named (docs/protocol.md §13.7): a query no smaller
 * than the history it would replace says so; the others mean the query
 * could not stand on its own. Each text once, in that order.
 */
export function reseedProblems(texts: Texts, problems: readonly string[]): string {
	const t = texts.t.bind(texts);
	const why: string[] = [];
	if (problems.length === 0 || problems.some((p) => p !== "not_smaller")) why.push(t("boundary.reseed.incomplete"));
	if (problems.includes("not_smaller")) why.push(t("boundary.reseed.not_smaller"));
	return why.join(" ");
}

/** renderBoundary is the `/continuity context` view of one decision record. */
export function renderBoundary(texts: Texts, d: BoundaryDecision): string {
	const t = texts.t.bind(texts);
	const lines = [`${decisionLine(texts, d.decision, d.reason)} (${d.trigger}, ${d.at})`];
	if (d.pin.recoverable && d.pin.eventId !== null) lines.push(t("boundary.pin", { eventId: d.pin.eventId }) + (d.pin.source ? ` (${d.pin.source})` : ""));
	else if (d.pin.eventId === null && d.pin.problem === "never_seen") lines.push(t("boundary.reason.pin_missing"));
	else lines.push(`${t("error.CONTINUITY_PIN_UNRECOVERABLE")}${d.pin.problem ? ` (${d.pin.problem})` : ""}`);
	if (d.kept.length) lines.push(`${t("boundary.kept")}:`, ...d.kept.map(item));
	if (d.dropped.length) lines.push(`${t("boundary.dropped")}:`, ...d.dropped.map(item));
	if (d.decision === "RESEED" && d.reseed && !d.reseed.complete) lines.push(`${reseedProblems(texts, d.reseed.problems)} (${d.reseed.problems.join(", ")})`);
	return lines.join("\n");
}

/** footer is the footer text for a decision: a RESEED is marked, an APPEND clears the mark. */
export function footer(texts: Texts, e: BoundaryEvent): string | undefined {
	if (e.decision !== "RESEED") return undefined;
	return `${texts.t("boundary.title")}: RESEED — ${texts.t(`boundary.reason.${e.reason}`)}`;
}
