// Small decisions the extension makes about pi's outcomes and its own
// configuration: how a finished run ends a turn, how an error is named for
// the person, and which form payloads go to the plugin in.
import type { PiMessage } from "./events.ts";
import { RemoteError } from "./remote.ts";
import { ClosedError, RPCError } from "./rpc.ts";

/** The DSH turn/end reason of a finished pi run. */
export function endReason(messages: PiMessage[] | undefined): Record<string, unknown> {
	const last = [...(messages ?? [])].reverse().find((m) => m.role === "assistant");
	switch (last?.stopReason) {
		case "aborted":
			return { kind: "aborted", reason: { kind: "user" } };
		case "error":
			return { kind: "error", error: { message: "the provider request failed" } };
		case "length":
			return { kind: "max-tokens" };
		default:
			return { kind: "completed" };
	}
}

/**
 * payloadForm is how bodies go to the plugin: "digest" (the default: only
 * per-item digests cross the pipe, the body stays pi's object) or "body"
 * (the whole body, and the plugin's bytes come back), from
 * CONTINUITY_PAYLOAD_FORM.
 */
export function payloadForm(env: NodeJS.ProcessEnv = process.env): "digest" | "body" {
	return env.CONTINUITY_PAYLOAD_FORM === "body" ? "body" : "digest";
}


/** diagnosticOf names an error for the user: the plugin's code, else its kind. */
export function diagnosticOf(err: unknown): { code: string; message: string } {
	if (err instanceof RPCError) return { code: err.diagnostic || `JSON-RPC ${err.code}`, message: err.message };
	if (err instanceof RemoteError) return { code: err.code, message: err.message };
	if (err instanceof ClosedError) return { code: "CONTINUITY_PLUGIN_UNAVAILABLE", message: err.message };
	const e = err as Error;
	return { code: e?.name === "BinaryNotFoundError" ? "CONTINUITY_PLUGIN_UNAVAILABLE" : "CONTINUITY_EXTENSION_ERROR", message: e?.message ?? String(err) };
}
