// What the person sees: the footer status, the account-switch pause, the
// replay-rejection offer and diagnostics. With a UI (interactive and RPC
// modes) these are pi's selectors and notifications; without one (print and
// JSON modes) nothing prompts and the same texts go to stderr.
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import { diagnosticOf } from "./outcomes.ts";
import { type Notice, policy, views } from "./remote.ts";
import type { Peer } from "./rpc.ts";
import type { Texts } from "./texts.ts";

export const STATUS_KEY = "continuity";

export type SwitchChoice = "enable" | "keepOff" | "cancel";

export class Prompts {
	private readonly texts: Texts;
	private readonly running: () => Peer | undefined;

	/** running is the peer of the plugin if it runs now (the footer never starts one). */
	constructor(texts: Texts, running: () => Peer | undefined) {
		this.texts = texts;
		this.running = running;
	}

	private get t() {
		return this.texts.t.bind(this.texts);
	}

	/** say shows an information line: a notification, or a stderr line in print mode. */
	say(ctx: ExtensionContext, text: string, level: "info" | "warning" | "error" = "info"): void {
		if (ctx.hasUI) ctx.ui.notify(text, level);
		else process.stderr.write(`continuity: ${text}\n`);
	}

	diagnostic(ctx: ExtensionContext, err: unknown): void {
		const { code, message } = diagnosticOf(err);
		let text: string;
		try {
			text = `${this.t("notice.diagnostic", { code })} ${this.t(`error.${code}`)}`;
		} catch {
			text = `${this.t("notice.diagnostic", { code })} ${message}`;
		}
		this.say(ctx, text, "error");
	}

	/** guard runs f and shows its error (diagnostic) instead of letting pi swallow it. */
	async guard<T>(ctx: ExtensionContext, f: () => Promise<T>): Promise<T | undefined> {
		try {
			return await f();
		} catch (err) {
			this.diagnostic(ctx, err);
			return undefined;
		}
	}

	/**
	 * status sets the footer while a turn runs: the policy the turn runs
	 * with and what it omitted. done clears it.
	 */
	status(ctx: ExtensionContext, done = false): void {
		if (!ctx.hasUI) return;
		if (done) {
			ctx.ui.setStatus(STATUS_KEY, undefined);
			return;
		}
		const peer = this.running();
		if (!peer) return;
		const sid = ctx.sessionManager.getSessionId();
		void policy
			.get(peer, sid)
			.then((v) => ctx.ui.setStatus(STATUS_KEY, `${this.t("policy.label")}: ${this.t((v.activeTurnEnabled ?? v.enabled) ? "policy.on" : "policy.off")}`))
			.catch(() => ctx.ui.setStatus(STATUS_KEY, undefined));
	}

	/**
	 * accountSwitch asks the plugin whether the switch must pause; if so,
	 * the person chooses Enable for this session, Keep off or Cancel.
	 * Without a UI it does not prompt: the notice goes to stderr and the
	 * request goes on as it is (keep off).
	 */
	async accountSwitch(ctx: ExtensionContext, peer: Peer, sessionId: string, accountId: string): Promise<SwitchChoice> {
		const v = await views.accountSwitch(peer, sessionId, accountId);
		if (!v.pause) return "keepOff";
		const t = this.t;
		const disclosure = t(v.disclosure ?? "accountSwitch.disclosure");
		if (!ctx.hasUI) {
			this.say(ctx, `${t("accountSwitch.title")}. ${t("accountSwitch.body")} ${disclosure} ${t("command.enableHint")} /continuity on confirm`, "warning");
			return "keepOff";
		}
		const labels: Record<SwitchChoice, string> = {
			enable: t("accountSwitch.choice.enable"),
			keepOff: t("accountSwitch.choice.keepOff"),
			cancel: t("accountSwitch.choice.cancel"),
		};
		const picked = await ctx.ui.select(`${t("accountSwitch.title")}\n${t("accountSwitch.body")}\n\n${disclosure}`, [labels.enable, labels.keepOff, labels.cancel]);
		const choice = (Object.keys(labels) as SwitchChoice[]).find((k) => labels[k] === picked) ?? "cancel";
		if (choice === "enable") {
			await policy.set(peer, sessionId, true);
			this.say(ctx, t("status.on"));
		}
		return choice;
	}

	/**
	 * rejection shows a replay rejection. When the turn ran with the policy
	 * off it offers Enable with the loss disclosure (and Cancel); it never
	 * re-sends anything.
	 */
	async rejection(ctx: ExtensionContext, peer: Peer, sessionId: string, n: Notice): Promise<void> {
		const t = this.t;
		if (!n.offer) {
			this.say(ctx, `${t(n.textKey)}${n.guidanceKey ? ` ${t(n.guidanceKey)}` : ""}`, "warning");
			return;
		}
		const disclosure = t(n.offer.disclosureKey);
		if (!ctx.hasUI) {
			// n.textKey says that the supplier rejected the request, and why: it
			// is not preceded by replay.rejected, which would say it twice.
			this.say(ctx, `${t(n.textKey)} ${t(n.offer.textKey)}: ${disclosure} ${t("command.enableHint")} /continuity on confirm`, "warning");
			return;
		}
		const enable = t("offer.choice.enable");
		const picked = await ctx.ui.select(`${t(n.offer.textKey)}\n${t(n.textKey)}\n\n${disclosure}`, [enable, t("offer.choice.cancel")]);
		if (picked === enable) {
			await policy.set(peer, sessionId, true);
			this.say(ctx, t("status.on"));
		}
	}
}
