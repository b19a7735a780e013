// continuity for the pi coding agent. Loaded with `pi -e` or installed with
// `pi install`; it runs `continuity serve` as a child and maps pi onto the
// continuity protocol: visible-history continuation across account
// switches, session continuation into successors, and managed context.
// Every import from pi is a type import, so the extension loads on both
// pi package lines (@mariozechner/pi-coding-agent 0.73.x and
// @earendil-works/pi-coding-agent 1.x).
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { continuityCommand, USAGE } from "./src/commands.ts";
import { claimProcess } from "./src/duplicate.ts";
import { Extension } from "./src/extension.ts";
import { registerSuccessorCommand, registerTools } from "./src/successor.ts";

export default async function continuity(pi: ExtensionAPI): Promise<void> {
	// Two copies loaded into one pi (installed and given with -e, or
	// installed twice) would register every tool and command twice, and
	// filter each request twice. The first copy serves; a second says so
	// once and registers nothing.
	if (!claimProcess(pi, import.meta.url)) return;
	const ext = new Extension(pi, process.env.PI_VERSION ?? "unknown");
	ext.register();
	pi.registerCommand("continuity", {
		description: `${ext.texts.t("command.description")} ${USAGE}`,
		handler: (args, ctx) => continuityCommand(ext.commandDeps(), args, ctx),
	});
	registerSuccessorCommand(ext.successorDeps(), pi);
	// The plugin starts with the extension, so its tools are pi's from the
	// first prompt and the first load's activation precedes sessions born
	// afterwards. A plugin that cannot start is reported and retried.
	try {
		const started = await ext.connect();
		registerTools(ext.successorDeps(), started.init.capabilities.tools);
		if (started.init.activation.state === "failed") {
			const code = started.init.activation.code ?? "";
			const why = ext.texts.has(`error.${code}`) ? `${ext.texts.t(`error.${code}`)} (${code})` : code;
			process.stderr.write(`continuity: ${why}\n`);
		}
	} catch (err) {
		process.stderr.write(`continuity: ${(err as Error).message}\n`);
	}
}
