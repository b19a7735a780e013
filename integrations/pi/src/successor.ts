// Session continuation in pi: the plugin's tools as pi tools (forwarded as
// tool/call), and the queued command that creates a successor the plugin
// asked for with ctx.newSession. The successor starts with the projection
// as its first message, and its run answers the initiating message the
// projection carries verbatim.
import type { ExtensionAPI, ExtensionCommandContext, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { BANNER_MESSAGE } from "./card.ts";
import type { CreatedSessions } from "./created.ts";
import type { SessionLog } from "./events.ts";
import { SUCCESSOR_COMMAND } from "./host.ts";
import { bannerEntry, cardWhenIdle, type PlacesDeps, placeCarried, postCard, registerPlaces } from "./places.ts";
import type { ToolInfo } from "./plugin.ts";
import { HEADER_ENTRY } from "./sessions.ts";
import type { Prompts } from "./ui.ts";

/**
 * What the continuation tools and the successor command need of the
 * extension: what the card, the banner and the return offer need
 * (places.ts), and the successors to create.
 */
export interface SuccessorDeps extends PlacesDeps {
	pi: Pick<ExtensionAPI, "registerTool" | "sendMessage" | "sendUserMessage">;
	prompts: Pick<Prompts, "say" | "diagnostic" | "guard">;
	successors: Pick<CreatedSessions, "get" | "delete" | "has" | "values">;
	log(ctx: ExtensionContext): SessionLog;
	/** ended holds the sessions whose turn the plugin ended (a continuation). */
	ended: { add(sessionId: string): void };
}

interface ToolCallResult {
	content: { type: "text"; text: string }[];
	structured?: Record<string, unknown>;
	isError?: boolean;
	endsTurn?: boolean;
}

/** registerTools declares the plugin's tools to pi, each forwarded as tool/call. */
export function registerTools(ext: SuccessorDeps, tools: ToolInfo[]): void {
	for (const tool of tools) {
		ext.pi.registerTool({
			name: tool.name,
			// A tool the texts do not name yet (a newer plugin's) shows its own name.
			label: ext.texts.has(`tool.${tool.name}`) ? ext.texts.t(`tool.${tool.name}`) : tool.name,
			description: tool.description ?? tool.name,
			// The plugin's JSON Schema as it is: pi validates plain JSON Schema too.
			parameters: tool.inputSchema as never,
			async execute(toolCallId: string, params: unknown, signal: AbortSignal | undefined, _onUpdate: unknown, ctx: ExtensionContext) {
				const { peer } = await ext.connect();
				const log = ext.log(ctx);
				const res = await peer.request<ToolCallResult>(
					"tool/call",
					{ sessionId: log.sessionId, turn: log.turn, callId: toolCallId, name: tool.name, arguments: params ?? {} },
					signal,
				);
				if (res.isError) throw new Error(res.content.map((c) => c.text).join("\n"));
				if (res.endsTurn) ext.ended.add(log.sessionId);
				return { content: res.content, details: res.structured ?? {}, terminate: res.endsTurn === true };
			},
		} as never);
	}
}

/**
 * registerSuccessorCommand adds the command session/create queues, and
 * what makes a continuation a place (places.ts): the card, the banner,
 * back, open and the return offer.
 */
export function registerSuccessorCommand(ext: SuccessorDeps, pi: ExtensionAPI): void {
	registerPlaces(ext, pi);
	// The successor commands pi 0.73 left for the person to send, by successor id.
	const manual = new Map<string, string>();
	// A pi line that delivers the queued command as text (0.73) would send
	// it to the model: it is stopped here, and the person runs it instead.
	// 0.73 offers an extension no other way to create a session: only a
	// command's context has newSession, and only the person can run a
	// command. So the command is put in the editor, ready to send, and the
	// card the turn ends with says so.
	pi.on("input", async (e, ctx) => {
		const prefix = `/${SUCCESSOR_COMMAND} `;
		if (e.source !== "extension" || !e.text.startsWith(prefix)) return { action: "continue" };
		const command = e.text.trim();
		manual.set(command.slice(prefix.length), command);
		ext.prompts.say(ctx, `${ext.texts.t("continuation.successor.ready")}\n${command}`);
		if (ctx.hasUI) ctx.ui.setEditorText(command);
		return { action: "handled" };
	});
	pi.on("agent_end", async (_e, ctx) => {
		const sid = ctx.sessionManager.getSessionId();
		for (const p of ext.successors.values()) {
			const command = manual.get(p.sessionId);
			if (p.predecessorId === sid && command && ctx.hasUI) cardWhenIdle(ext, ctx, p, command);
		}
	});
	pi.registerCommand(SUCCESSOR_COMMAND, {
		description: ext.texts.t("command.successor.description"),
		handler: async (args: string, ctx: ExtensionCommandContext) => {
			if (!(await createSuccessor(ext, ctx, args.trim()))) {
				ext.prompts.say(ctx, `${ext.texts.t("continuation.successor.missing")} ${args.trim()}`, "error");
			}
		},
	});
}

/**
 * createSuccessor creates the successor the plugin asked for (false when
 * none waits under id): the predecessor ends with the card, the successor
 * starts with the banner and then runs the projection, which carries the
 * initiating message.
 */
export async function createSuccessor(ext: SuccessorDeps, ctx: ExtensionCommandContext, id: string): Promise<boolean> {
	const p = ext.successors.get(id);
	if (!p) return false;
	await ctx.waitForIdle();
	ext.successors.delete(p.sessionId);
	const parentSession = ctx.sessionManager.getSessionFile();
	const first = renderProjection(p.context);
	// The card and the banner are shown, not required: a failure to read
	// them is said, and the continuation goes on.
	let banner: Awaited<ReturnType<typeof bannerEntry>>;
	await ext.prompts.guard(ctx, async () => {
		const { peer } = await ext.connect();
		if (ctx.hasUI) await postCard(ext, peer, ctx, p);
		banner = await bannerEntry(ext, peer, p.sessionId);
	});
	await ctx.newSession({
		parentSession,
		setup: async (sm) => {
			// The id the plugin was given for this successor.
			sm.newSession({ id: p.sessionId, parentSession });
			sm.appendCustomEntry(HEADER_ENTRY, p.header);
			if (banner) sm.appendCustomMessageEntry(BANNER_MESSAGE, banner.content, true, banner.details);
		},
		withSession: async (next) => {
			placeCarried(ext, next, p.sessionId);
			await next.sendUserMessage(first);
		},
	});
	return true;
}

interface Section {
	kind: string;
	text?: string;
	eventId?: string;
	state?: { kind?: string; text?: string }[];
	handoff?: Record<string, unknown>;
	events?: { eventId?: string; type?: string; text?: string }[];
	omitted?: unknown[];
	data?: { text?: unknown; content?: unknown };
}

/** messageText is a DSH message's text: a string, or its text blocks joined. */
function messageText(data: Section["data"]): string | undefined {
	if (typeof data?.text === "string") return data.text;
	if (typeof data?.content === "string") return data.content;
	if (!Array.isArray(data?.content)) return undefined;
	return (data.content as { type?: string; text?: string }[])
		.filter((b) => b.type === "text" && typeof b.text === "string")
		.map((b) => b.text)
		.join("\n");
}

/** renderProjection writes the projection's sections as the successor's first message. */
export function renderProjection(context: unknown): string {
	const sections = ((context as { sections?: Section[] } | null)?.sections ?? []) as Section[];
	const parts: string[] = [];
	for (const s of sections) {
		const data = messageText(s.data);
		if (typeof s.text === "string") parts.push(s.text);
		else if (data !== undefined) parts.push(data);
		else if (s.state) parts.push(s.state.map((i) => `- ${i.text ?? JSON.stringify(i)}`).join("\n"));
		else if (s.handoff) parts.push(JSON.stringify(s.handoff, null, 2));
		else if (s.events) parts.push(s.events.map((e) => e.text ?? JSON.stringify(e)).join("\n"));
	}
	return parts.join("\n\n");
}
