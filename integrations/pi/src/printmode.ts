// Commands in print mode (`pi -p "/continuity"`). After the prompts, pi
// (both lines) prints the session's last message when it is the model's
// answer, and exits 1 when that answer was an error — even when the only
// prompt was a command, so `/continuity` would reprint the last turn's
// answer (or its `400 …`) and fail. A command run without a UI therefore
// ends with a message of its own that pi does not print: a custom message,
// not displayed, which the extension's context handler keeps from the
// model (extension.ts). The command's own output went to stderr already.
import type { ExtensionAPI, ExtensionCommandContext } from "@mariozechner/pi-coding-agent";

/** COMMAND_MESSAGE is the custom type of the message a print-mode command ends with. */
export const COMMAND_MESSAGE = "continuity-command";

/** endCommand closes a command run without a UI (print and JSON modes). */
export function endCommand(pi: Pick<ExtensionAPI, "sendMessage">, ctx: ExtensionCommandContext): void {
	if (ctx.hasUI) return;
	pi.sendMessage({ customType: COMMAND_MESSAGE, content: "", display: false }, { triggerTurn: false });
}
