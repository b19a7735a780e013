// What the plugin pushes (remote/event) about the session pi shows: a
// boundary decision marks the footer (a RESEED) or clears the mark; a
// notice goes where it belongs — what a request omitted into the footer,
// a compaction's state as a notification. The rejection offer, the
// account-switch pause, a request's diagnostic, the transition card and
// (with a UI) the return offer are shown by the flows that own them
// (requests.ts, ui.ts, places.ts), so their pushed copies are not said
// again.
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import { BOUNDARY_STATUS, type BoundaryEvent, footer } from "./boundary.ts";
import type { Notice } from "./remote.ts";
import type { Texts } from "./texts.ts";

/** NOTICE_STATUS is the footer slot of what the plugin last said about a request. */
export const NOTICE_STATUS = "continuity-notice";

/** What showing a pushed event needs of the extension. */
export interface PushedDeps {
	texts: Texts;
	/** current is the session pi shows and its ctx. */
	current(): { sessionId: string; ctx: ExtensionContext } | undefined;
	say(ctx: ExtensionContext, text: string): void;
}

/** showPushed shows one remote/event about the session pi shows; others are not this pi's to show. */
export function showPushed(deps: PushedDeps, event: string, args: unknown): void {
	const cur = deps.current();
	const a = args as { agentId?: string } | undefined;
	if (!cur || !a || a.agentId !== cur.sessionId) return;
	const texts = deps.texts;
	try {
		const ctx = cur.ctx;
		if (event === "continuity.boundary") {
			if (ctx.hasUI) ctx.ui.setStatus(BOUNDARY_STATUS, footer(texts, a as BoundaryEvent));
			return;
		}
		// The transition card says where the session continued, and the
		// return offer asks before a message is sent (places.ts).
		if (event !== "continuity.notice") return;
		const n = a as Notice & { compaction?: unknown; continuation?: { title?: string } };
		const f = n.filtered ?? { items: 0, codeUnits: 0, strippedIds: 0 };
		const text = texts.t(n.textKey, { ...f, code: n.code ?? "", title: n.continuation?.title ?? "" });
		if (n.kind === "filtered" || n.kind === "native") {
			if (ctx.hasUI) ctx.ui.setStatus(NOTICE_STATUS, text);
		} else if (n.kind === "compaction" || (n.kind === "continuationReturn" && !ctx.hasUI)) deps.say(ctx, text);
	} catch {
		// a stale ctx (pi replaced the session): the new one reads the views itself
	}
}
