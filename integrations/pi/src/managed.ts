// Managed context in pi's compaction. When pi compacts, the extension has
// already opened the bracket (compaction/start, a boundary); it asks
// continuity for that boundary's decision (continuity/boundary, which waits
// until the boundary is decided). A complete RESEED's projection carries the
// positive current-state query (pin, constraints, confirmed effects,
// current request, next action), computed from durable state: it becomes
// the compaction's summary, and pi makes no model call for it. An APPEND,
// an incomplete RESEED, a decision about another boundary, or no decision
// at all lets pi's own compaction run, and the person is told why.
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import { type BoundaryDecision, decisionLine, reseedProblems } from "./boundary.ts";
import { diagnosticOf } from "./outcomes.ts";
import { views } from "./remote.ts";
import type { Peer } from "./rpc.ts";
import type { Texts } from "./texts.ts";

/** What a managed compaction needs of the extension. */
export interface ManagedDeps {
	texts: Texts;
	connect(): Promise<{ peer: Peer }>;
	say(ctx: ExtensionContext, text: string, level?: "info" | "warning"): void;
}

/** What pi's session_before_compact hands over, as far as this reads it. */
export interface Preparation {
	firstKeptEntryId: string;
	tokensBefore: number;
}

/** The compaction a RESEED gives pi (SessionBeforeCompactResult on both lines). */
export interface ManagedCompaction {
	compaction: { summary: string; firstKeptEntryId: string; tokensBefore: number; details: { continuity: { decisionId: number; reason: string } } };
}

/**
 * managedCompaction decides a compaction whose bracket opened at seq
 * startSeq: continuity's query as pi's summary, or undefined for pi's own.
 */
export async function managedCompaction(ext: ManagedDeps, ctx: ExtensionContext, sessionId: string, startSeq: number, prep: Preparation): Promise<ManagedCompaction | undefined> {
	const t = ext.texts.t.bind(ext.texts);
	let d: BoundaryDecision & { id: number };
	try {
		const { peer } = await ext.connect();
		d = (await views.boundary(peer, sessionId)) as unknown as BoundaryDecision & { id: number };
	} catch (err) {
		const { code, message } = diagnosticOf(err);
		ext.say(ctx, `${t("compaction.own")} (${ext.texts.has(`error.${code}`) ? t(`error.${code}`) : message})`, "warning");
		return undefined;
	}
	const line = decisionLine(ext.texts, d.decision, d.reason);
	if (d.trigger !== "compaction_start" || d.throughEventId !== String(startSeq)) {
		ext.say(ctx, `${t("compaction.own")} (${t("compaction.undecided")})`, "warning");
		return undefined;
	}
	const query = d.reseed?.complete ? d.reseed.projection?.query : undefined;
	if (d.decision !== "RESEED" || !query) {
		// A RESEED without a pin rebuilds nothing: its reason is the news.
		const pinless = d.reason === "pin_missing" || d.reason === "pin_changed";
		const why = d.decision !== "RESEED" ? line : pinless ? t(`boundary.reason.${d.reason}`) : reseedProblems(ext.texts, d.reseed?.problems ?? []);
		ext.say(ctx, `${t("compaction.own")} ${why}`);
		return undefined;
	}
	ext.say(ctx, `${line} ${t("compaction.reseed")}`);
	return {
		compaction: {
			summary: query,
			firstKeptEntryId: prep.firstKeptEntryId,
			tokensBefore: prep.tokensBefore,
			details: { continuity: { decisionId: d.id, reason: d.reason } },
		},
	};
}
