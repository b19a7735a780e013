// Continuation as a place in pi: the predecessor ends with the transition
// card, the successor starts with the banner, `/continuity back` opens the
// predecessor and `/continuity open` the continuation, and writing in a
// predecessor that continued offers to go to the continuation instead
// (the return offer, docs/protocol.md §12.6) before anything is sent.
//
// pi has no navigation an extension can start from an event: switchSession
// exists only on a command's context. So every move is a command; the
// return offer, which runs in pi's input hook, queues its command. pi 1.x
// runs a queued command; pi 0.73 delivers it as text, which the input hook
// stops and puts in the editor for the person to send.
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ExtensionAPI, ExtensionCommandContext, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { type Banner, BANNER_MESSAGE, bannerLines, block, type Card, CARD_MESSAGE, cardLines, OPEN_COMMAND, type Theme } from "./card.ts";
import type { CreatedSessions, PendingSuccessor } from "./created.ts";
import { views } from "./remote.ts";
import type { Peer } from "./rpc.ts";
import type { Texts } from "./texts.ts";
import type { Prompts } from "./ui.ts";

/**
 * What the card, the banner, open, back and the return offer need of the
 * extension. SuccessorDeps (successor.ts) extends it: the successor
 * command posts the card and the banner as it creates a successor.
 */
export interface PlacesDeps {
	pi: Pick<ExtensionAPI, "sendMessage" | "sendUserMessage">;
	texts: Texts;
	prompts: Pick<Prompts, "say" | "diagnostic">;
	/** successors says which successor still waits for pi 0.73's person to create it. */
	successors: Pick<CreatedSessions, "has">;
	connect(): Promise<{ peer: Peer }>;
	/**
	 * carried holds the messages a person wrote in a predecessor and chose
	 * to take to its continuation, by successor id, until that continuation's
	 * editor shows them.
	 */
	carried: Map<string, string>;
}

/** What the card and banner messages keep in their details: the lines shown and the view they came from. */
interface Shown<V> {
	lines: string[];
	view: V;
}

interface Entry {
	type: string;
	customType?: string;
	details?: unknown;
}

/** cards lists the transition cards this session's file holds, oldest first. */
function cards(ctx: ExtensionContext): Card[] {
	return (ctx.sessionManager.getEntries() as Entry[])
		.filter((e) => e.type === "custom_message" && e.customType === CARD_MESSAGE)
		.map((e) => (e.details as Shown<Card>).view);
}

/** registerPlaces adds the card's and banner's renderer, keeps them from the model and makes the return offer. */
export function registerPlaces(ext: PlacesDeps, pi: Pick<ExtensionAPI, "on" | "registerMessageRenderer">): void {
	pi.registerMessageRenderer(BANNER_MESSAGE, ((m: { details?: Shown<Banner> }, _o: unknown, theme: Theme) =>
		m.details?.lines ? block(m.details.lines, theme) : undefined) as never);
	// The card says what to press only while pi 0.73's successor waits to be
	// created; once it exists, the card offers open and inspect like any other.
	pi.registerMessageRenderer(CARD_MESSAGE, ((m: { details?: Shown<Card> & { manual?: string } }, _o: unknown, theme: Theme) => {
		const d = m.details;
		if (!d?.view) return undefined;
		const manual = d.manual && ext.successors.has(d.view.successorId) ? d.manual : undefined;
		return block(cardLines(ext.texts, d.view, manual), theme);
	}) as never);
	// The card and the banner are the person's; the model never reads them.
	pi.on("context", async (e) => {
		const shown = (m: unknown) => {
			const c = m as { role: string; customType?: string };
			return c.role === "custom" && (c.customType === CARD_MESSAGE || c.customType === BANNER_MESSAGE);
		};
		return e.messages.some(shown) ? { messages: e.messages.filter((m) => !shown(m)) } : undefined;
	});
	pi.on("input", async (e, ctx) => {
		if (e.source === "extension") {
			// pi 0.73 delivers the return offer's queued command as text.
			if (!e.text.startsWith(`${OPEN_COMMAND} `)) return { action: "continue" };
			const command = e.text.trim();
			ext.prompts.say(ctx, `${ext.texts.t("continuation.return.press")}\n${command}`);
			if (ctx.hasUI) ctx.ui.setEditorText(command);
			return { action: "handled" };
		}
		if (!ctx.hasUI || e.text.trimStart().startsWith("/")) return { action: "continue" };
		const card = cards(ctx).at(-1);
		if (!card) return { action: "continue" };
		return returnOffer(ext, ctx, card, e.text);
	});
}

/**
 * returnOffer asks, before a message written in a continued predecessor
 * goes anywhere, whether to open the current continuation (the message
 * goes along, into its editor) or to branch from here (the message is sent
 * here, and the agent may continue this session again). Escape sends
 * nothing and gives the message back.
 */
async function returnOffer(ext: PlacesDeps, ctx: ExtensionContext, card: Card, text: string): Promise<{ action: "continue" } | { action: "handled" }> {
	const t = ext.texts.t.bind(ext.texts);
	const open = t("continuation.return.choice.open");
	const branch = t("continuation.return.choice.branch");
	const picked = await ctx.ui.select(`${t("continuation.return.title", { title: card.successorTitle })}\n${t("continuation.return.body")}`, [open, branch]);
	if (picked === branch) return { action: "continue" };
	if (picked !== open) {
		ctx.ui.setEditorText(text);
		ext.prompts.say(ctx, t("continuation.return.kept"));
		return { action: "handled" };
	}
	ext.carried.set(card.successorId, text);
	// After this hook returns: the queued command must not run inside it.
	setTimeout(() => ext.pi.sendUserMessage(`${OPEN_COMMAND} ${card.successorId}`, { expandPromptTemplates: true } as never), 0);
	return { action: "handled" };
}

/**
 * postCard ends the predecessor ctx shows with the card of its
 * continuation in successor (from the lineage Remote), once. manual is the
 * command the person must send on pi 0.73. ctx's agent must be idle: a
 * custom message sent while it runs would start another model call.
 */
export async function postCard(ext: PlacesDeps, peer: Peer, ctx: ExtensionContext, successor: PendingSuccessor, manual?: string): Promise<void> {
	if (cards(ctx).some((c) => c.successorId === successor.sessionId)) return;
	const lineage = (await views.lineage(peer, successor.predecessorId)) as { cards?: Card[] };
	const view = lineage.cards?.find((c) => c.successorId === successor.sessionId);
	if (!view) return; // the edge did not commit: nothing continued
	// Again after the call: the successor command may have posted it, or
	// replaced the session (ctx is then stale and this throws, so the card
	// never lands in the successor).
	if (cards(ctx).some((c) => c.successorId === successor.sessionId)) return;
	const lines = cardLines(ext.texts, view, manual);
	ext.pi.sendMessage({ customType: CARD_MESSAGE, content: lines.join("\n"), display: true, details: { lines, view, manual } }, { triggerTurn: false });
}

/** bannerEntry is the banner of successorId (its lineage), for the successor's first entry. */
export async function bannerEntry(ext: Pick<PlacesDeps, "texts">, peer: Peer, successorId: string): Promise<{ content: string; details: Shown<Banner> } | undefined> {
	const lineage = (await views.lineage(peer, successorId)) as { banner?: Banner | null };
	if (!lineage.banner) return undefined;
	const lines = bannerLines(ext.texts, lineage.banner);
	return { content: lines.join("\n"), details: { lines, view: lineage.banner } };
}

/**
 * cardWhenIdle posts the card once the predecessor's ended turn has
 * settled (pi 0.73, where the person sends the successor's command): pi
 * runs agent_end handlers before it leaves the turn.
 */
export function cardWhenIdle(ext: PlacesDeps, ctx: ExtensionContext, successor: PendingSuccessor, manual: string): void {
	const started = Date.now();
	const tick = () => {
		try {
			if (!ctx.isIdle()) {
				if (Date.now() - started < 10_000) setTimeout(tick, 50);
				return;
			}
			void ext
				.connect()
				.then(({ peer }) => postCard(ext, peer, ctx, successor, manual))
				.catch((err) => {
					try {
						ext.prompts.diagnostic(ctx, err);
					} catch {
						// the person sent the successor's command meanwhile: ctx is stale, and the card is the lineage view's
					}
				});
		} catch {
			// a stale ctx: pi replaced the session, whose card the lineage view still shows
		}
	};
	setTimeout(tick, 50);
}

/** sessionFile finds the file of sessionId among the sessions next to ctx's (pi names them <time>_<id>.jsonl). */
function sessionFile(ctx: ExtensionContext, sessionId: string): string | undefined {
	const own = ctx.sessionManager.getSessionFile();
	if (!own) return undefined;
	const dir = dirname(own);
	try {
		const name = readdirSync(dir).find((f) => f.endsWith(`_${sessionId}.jsonl`));
		return name ? join(dir, name) : undefined;
	} catch {
		return undefined;
	}
}

/**
 * openContinuation is `/continuity open [successorId]`: it switches to the
 * session's latest continuation (or the one named). A successor pi 0.73
 * has not created yet is created by create; a message the return offer
 * carried waits in the continuation's editor. True when pi moved there.
 */
export async function openContinuation(ext: PlacesDeps, arg: string | undefined, ctx: ExtensionCommandContext, create: (id: string) => Promise<boolean>): Promise<boolean> {
	const t = ext.texts.t.bind(ext.texts);
	let card = arg ? cards(ctx).find((c) => c.successorId === arg) : cards(ctx).at(-1);
	if (!card) {
		const { peer } = await ext.connect();
		const all = ((await views.lineage(peer, ctx.sessionManager.getSessionId())) as { cards?: Card[] }).cards ?? [];
		card = arg ? all.find((c) => c.successorId === arg) : all.at(-1);
	}
	if (!card) {
		ext.prompts.say(ctx, t("continuation.open.none"), "warning");
		return false;
	}
	const id = card.successorId;
	const file = sessionFile(ctx, id);
	if (!file) {
		if (await create(id)) return true;
		ext.prompts.say(ctx, t("continuation.open.missing", { title: card.successorTitle }), "warning");
		return false;
	}
	await ctx.switchSession(file, { withSession: async (next) => placeCarried(ext, next, id) });
	return true;
}

/** placeCarried puts a message the return offer carried into the continuation's editor. */
export function placeCarried(ext: Pick<PlacesDeps, "texts" | "carried">, ctx: ExtensionContext, successorId: string): void {
	const text = ext.carried.get(successorId);
	if (text === undefined || !ctx.hasUI) return;
	ext.carried.delete(successorId);
	ctx.ui.setEditorText(text);
	// pi redraws the session after withSession returns, which clears what
	// was said during it: the notice comes after that.
	setTimeout(() => {
		try {
			ctx.ui.notify(ext.texts.t("continuation.return.moved"), "info");
		} catch {
			// pi moved on to another session already; the editor still holds the message
		}
	}, 0);
}

/** goBack is `/continuity back`: it switches from a successor to its predecessor (the banner's); true when it did. */
export async function goBack(ext: PlacesDeps, ctx: ExtensionCommandContext): Promise<boolean> {
	const { peer } = await ext.connect();
	const banner = ((await views.lineage(peer, ctx.sessionManager.getSessionId())) as { banner?: Banner | null }).banner;
	const file = banner ? sessionFile(ctx, banner.predecessorId) : undefined;
	if (!banner || !file) {
		ext.prompts.say(ctx, ext.texts.t(banner ? "continuation.back.missing" : "continuation.back.none", { title: banner?.predecessorTitle || banner?.predecessorId || "" }), "warning");
		return false;
	}
	await ctx.switchSession(file);
	return true;
}
