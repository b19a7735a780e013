// One copy of the extension per pi process. pi loads every extension it is
// given into the same JavaScript realm, so a process-global marker (a
// registered symbol on globalThis) tells a second copy that the first one
// already serves. The marker is released at session_shutdown, because pi
// (both lines) runs the extensions' factories again after /new, /resume,
// /fork and /reload, and the first copy must then claim it again.
import { fileURLToPath } from "node:url";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Texts } from "./texts.ts";

const MARKER = Symbol.for("continuity-dev.pi-continuity.loaded");
/** WARNED outlives the claims: the second copy is named once per process, not once per session. */
const WARNED = Symbol.for("continuity-dev.pi-continuity.duplicate-named");

interface Claim {
	from: string;
}

export type Global = { [MARKER]?: Claim; [WARNED]?: true };

/** where is the file a copy was loaded from, as a person would look for it. */
function where(url: string): string {
	try {
		return fileURLToPath(url);
	} catch {
		return url;
	}
}

/**
 * claimProcess makes this copy the one that serves pi, or, when another
 * copy already does, arranges one named message and returns false: the
 * caller then registers nothing.
 */
export function claimProcess(pi: ExtensionAPI, url: string, g: Global = globalThis as Global): boolean {
	const from = where(url);
	const first = g[MARKER];
	if (!first) {
		const claim: Claim = { from };
		g[MARKER] = claim;
		pi.on("session_shutdown", async () => {
			if (g[MARKER] === claim) delete g[MARKER];
		});
		return true;
	}
	pi.on("session_start", async (_e, ctx) => {
		if (g[WARNED]) return;
		g[WARNED] = true;
		const text = `${new Texts().t("extension.duplicate")} (1: ${first.from}; 2: ${from})`;
		if (ctx.hasUI) ctx.ui.notify(text, "warning");
		else process.stderr.write(`continuity: ${text}\n`);
	});
	return false;
}
