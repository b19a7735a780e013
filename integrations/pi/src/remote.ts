// The plugin's Remotes as the extension uses them: the Session policy
// (githubCopilotSessionContinuation) and continuity's own views.
import type { Peer } from "./rpc.ts";

export interface PolicyView {
	enabled: boolean;
	revision: number;
	source?: "session" | "default";
	activeTurnEnabled?: boolean;
	nextTurnAuthorized?: boolean;
}

export interface Notice {
	id: string;
	kind: string;
	textKey: string;
	requestId?: string;
	outcome?: string;
	filtered?: { items: number; codeUnits: number; strippedIds: number };
	policy?: string;
	offer?: { action: string; textKey: string; disclosureKey: string; choices: { id: string; textKey: string }[] };
	guidanceKey?: string;
	code?: string;
}

/** RemoteError is a failed Remote call ({ok: false}), with its code. */
export class RemoteError extends Error {
	readonly code: string;
	constructor(code: string, message: string) {
		super(`${code}: ${message}`);
		this.code = code;
		this.name = "RemoteError";
	}
}

export async function invoke<T>(peer: Peer, namespace: string, method: string, args: Record<string, unknown>): Promise<T> {
	const res = await peer.request<{ ok: boolean; value?: T; error?: { code: string; message: string } }>("remote/invoke", { namespace, method, args });
	if (!res.ok) throw new RemoteError(res.error?.code ?? "unknown", res.error?.message ?? "");
	return res.value as T;
}

const POLICY = "githubCopilotSessionContinuation";

export const policy = {
	get: (peer: Peer, agentId: string) => invoke<PolicyView>(peer, POLICY, "get", { agentId }),
	/** set saves the session's own policy; null returns it to the default. */
	async set(peer: Peer, agentId: string, enabled: boolean | null): Promise<PolicyView> {
		const { revision } = await policy.get(peer, agentId);
		return invoke<PolicyView>(peer, POLICY, "set", { agentId, revision, enabled });
	},
	defaults: (peer: Peer) => invoke<{ enabled: boolean; revision: number }>(peer, POLICY, "defaults", {}),
	async setDefault(peer: Peer, enabled: boolean): Promise<{ enabled: boolean; revision: number }> {
		const { revision } = await policy.defaults(peer);
		return invoke(peer, POLICY, "setDefault", { revision, enabled });
	},
};

export const views = {
	notices: (peer: Peer, agentId: string) => invoke<{ notices: Notice[] }>(peer, "continuity", "notices", { agentId }),
	accountSwitch: (peer: Peer, agentId: string, accountId: string) =>
		invoke<{ pause: boolean; choices?: string[]; disclosure?: string }>(peer, "continuity", "accountSwitch", { agentId, accountId }),
	lineage: (peer: Peer, agentId: string) => invoke<Record<string, unknown>>(peer, "continuity", "lineage", { agentId }),
	handoff: (peer: Peer, edgeId: string) => invoke<Record<string, unknown>>(peer, "continuity", "handoff", { edgeId }),
	/** boundary is the session's latest boundary decision (waits for the boundaries already observed). */
	boundary: (peer: Peer, agentId: string) => invoke<Record<string, unknown>>(peer, "continuity", "boundary", { agentId }),
};
