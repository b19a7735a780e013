// /continuity: the Session policy and the continuation views.
//   /continuity                   the policy (and the active turn's, when it differs) and this turn's omissions
//   /continuity on|off|default    this session's policy (on only after the loss disclosure is confirmed)
//   /continuity new-sessions on|off   the creation-time default for sessions born afterwards
//   /continuity lineage | handoff the session's lineage path and the handoff that created it
//   /continuity handoff <edge>    the handoff of a transition card's edge (places.ts)
//   /continuity open [id] | back  to the continuation, or back to the predecessor (places.ts)
//   /continuity context           the last managed-context boundary decision (boundary.ts)
//   /continuity rule provenance|turn  the omission rule admitted requests follow (provenance.ts)
// Without a UI, confirming is part of the command: `/continuity on confirm`.
import type { ExtensionAPI, ExtensionCommandContext, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { type BoundaryDecision, renderBoundary } from "./boundary.ts";
import { endCommand } from "./printmode.ts";
import { type Omission, RULES, type Rule } from "./provenance.ts";
import { policy, views } from "./remote.ts";
import { writeRule } from "./rule.ts";
import { goBack, openContinuation } from "./places.ts";
import { createSuccessor, type SuccessorDeps } from "./successor.ts";
import type { Texts } from "./texts.ts";
import type { Prompts } from "./ui.ts";
import type { HandoffView, LineageView } from "./views.ts";
import { lastEdge, renderHandoff, renderLineage } from "./views.ts";
import type { Peer } from "./rpc.ts";

/** What /continuity needs of the extension. */
export interface CommandDeps {
	pi: Pick<ExtensionAPI, "sendMessage">;
	texts: Texts;
	prompts: Pick<Prompts, "say" | "guard">;
	connect(): Promise<{ peer: Peer }>;
	/** track makes ctx's session the one shown (and its log, on first use). */
	track(ctx: ExtensionContext): void;
	rule(): Rule;
	/** lastByProvenance is what the provenance rule omitted from the session's last request. */
	lastByProvenance(sessionId: string): Omission["omitted"] | undefined;
	/** successor is what open and back use: they move to a continuation, creating one pi 0.73 left waiting. */
	successor: SuccessorDeps;
}

export const USAGE = "/continuity [on|off|default|new-sessions on|off|rule provenance|turn|context|lineage|handoff [edge]|open|back]";

export async function continuityCommand(ext: CommandDeps, args: string, ctx: ExtensionCommandContext): Promise<void> {
	const words = args.trim().split(/\s+/).filter(Boolean);
	const t = ext.texts.t.bind(ext.texts);
	const out = (s: string) => (ctx.hasUI ? ctx.ui.notify(s, "info") : process.stdout.write(`${s}\n`));
	// After open or back pi shows another session, and this ctx is stale.
	let moved = false;
	await ext.prompts.guard(ctx, async () => {
		const { peer } = await ext.connect();
		const sid = ctx.sessionManager.getSessionId();
		ext.track(ctx);
		const [verb, arg, confirm] = words;
		switch (verb) {
			case undefined:
				out(await show(ext, peer, sid));
				return;
			case "on":
				if (!(await confirmed(ext, ctx, arg === "confirm"))) return;
				await policy.set(peer, sid, true);
				out(await show(ext, peer, sid));
				return;
			case "off":
				await policy.set(peer, sid, false);
				out(await show(ext, peer, sid));
				return;
			case "default":
				await policy.set(peer, sid, null);
				out(await show(ext, peer, sid));
				return;
			case "new-sessions":
				if (arg === "on") {
					if (!(await confirmed(ext, ctx, confirm === "confirm"))) return;
					await policy.setDefault(peer, true);
				} else if (arg === "off") await policy.setDefault(peer, false);
				else break;
				out(await show(ext, peer, sid));
				return;
			case "rule":
				if (!RULES.includes(arg as Rule) || confirm !== undefined) break;
				writeRule(arg as Rule);
				out(await show(ext, peer, sid));
				return;
			case "context":
				out(renderBoundary(ext.texts, (await views.boundary(peer, sid)) as unknown as BoundaryDecision));
				return;
			case "lineage":
				out(renderLineage(ext.texts, (await views.lineage(peer, sid)) as LineageView));
				return;
			case "open":
				moved = await openContinuation(ext.successor, arg, ctx, (id) => createSuccessor(ext.successor, ctx, id));
				return;
			case "back":
				moved = await goBack(ext.successor, ctx);
				return;
			case "handoff": {
				const edge = arg ?? lastEdge((await views.lineage(peer, sid)) as LineageView);
				out(edge ? renderHandoff(ext.texts, (await views.handoff(peer, edge)) as unknown as HandoffView) : t("continuation.handoff.none"));
				return;
			}
		}
		ext.prompts.say(ctx, `${t("command.usage")} ${USAGE}`, "warning");
	});
	if (!moved) endCommand(ext.pi, ctx);
}

/** confirmed shows the loss disclosure and asks; without a UI the word "confirm" is the answer. */
async function confirmed(ext: CommandDeps, ctx: ExtensionCommandContext, inArgs: boolean): Promise<boolean> {
	const t = ext.texts.t.bind(ext.texts);
	if (!ctx.hasUI) {
		if (inArgs) return true;
		ext.prompts.say(ctx, `${t("offer.enable.title")}: ${t("offer.disclosure")} ${t("command.confirmHint")}`, "warning");
		return false;
	}
	return ctx.ui.confirm(t("offer.enable.title"), t("offer.disclosure"));
}

/** show renders the Session policy view and this turn's notices. */
async function show(ext: CommandDeps, peer: Peer, sid: string): Promise<string> {
	const t = ext.texts.t.bind(ext.texts);
	const v = await policy.get(peer, sid);
	const d = await policy.defaults(peer);
	const onOff = (b: boolean) => t(b ? "policy.on" : "policy.off");
	const lines = [`${t("policy.label")} — ${t("policy.session")}: ${onOff(v.enabled)}${v.source === "default" ? ` (${t("policy.default")})` : ""}`];
	if (v.activeTurnEnabled !== undefined && v.activeTurnEnabled !== v.enabled) {
		lines.push(`${t("policy.pendingNextTurn")} (${onOff(v.activeTurnEnabled)})`);
	}
	// One default serves the plugin, pi and every proxy on the data directory (docs/design.md §5): say so.
	lines.push(`${t("policy.default")}: ${onOff(d.enabled)} (${t("proxy.page.shared")})`);
	const rule = ext.rule();
	lines.push(`${t("rule.label")}: ${t(`rule.${rule}`)}`);
	const last = ext.lastByProvenance(sid);
	if (rule === "provenance" && last) lines.push(t("rule.lastRequest", last));
	const { notices } = await views.notices(peer, sid);
	for (const n of notices) {
		const f = n.filtered ?? { items: 0, codeUnits: 0, strippedIds: 0 };
		lines.push(t(n.textKey, { items: f.items, codeUnits: f.codeUnits, strippedIds: f.strippedIds, code: n.code ?? "" }));
	}
	return lines.join("\n");
}
