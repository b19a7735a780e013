// The `continuity serve` child process and the protocol's lifecycle: spawn,
// initialize with the host capabilities pi can serve, shutdown. The child's
// stderr (JSON log lines, no secrets by the plugin's own rule) is kept to a
// short tail for diagnostics instead of being printed into pi's screen.
import { type ChildProcess, spawn } from "node:child_process";
import { dataDir, locateBinary } from "./locate.ts";
import { Peer } from "./rpc.ts";

/** The providers of pi whose Responses calls take part (PROTOCOL §3). */
export const PAYLOAD_PROVIDERS = ["github-copilot", "openai", "openai-codex"];

export interface ToolInfo {
	name: string;
	description?: string;
	inputSchema: Record<string, unknown>;
}

export interface InitializeResult {
	activation: { state: "ready" | "failed"; code?: string };
	capabilities: {
		payloadFilter: { providers: string[] };
		tools: ToolInfo[];
	};
}

export interface Started {
	peer: Peer;
	init: InitializeResult;
	stop(): Promise<void>;
	stderrTail(): string;
}

const TAIL = 8192;

/**
 * start runs the plugin and initializes it. `serve` registers the host-side
 * handlers on the peer before initialize, so the plugin's first callbacks
 * (agents/get during activation) find them.
 */
export async function start(hostVersion: string, serve: (peer: Peer) => void, env: NodeJS.ProcessEnv = process.env): Promise<Started> {
	const bin = locateBinary(env);
	const child: ChildProcess = spawn(bin, ["serve"], { stdio: ["pipe", "pipe", "pipe"], env });
	let tail = "";
	child.stderr!.setEncoding("utf8");
	child.stderr!.on("data", (s: string) => {
		tail = (tail + s).slice(-TAIL);
	});
	const peer = new Peer(child.stdin!, child.stdout!);
	const exited = new Promise<void>((resolve) => {
		child.on("exit", (code, signal) => {
			peer.close(`exited (${signal ?? code})`);
			resolve();
		});
		child.on("error", (e) => {
			peer.close(e.message);
			resolve();
		});
	});
	serve(peer);
	const stop = async () => {
		if (!peer.isClosed) {
			try {
				await Promise.race([peer.request("shutdown", {}), exited]);
			} catch {
				// already gone: nothing to shut down
			}
		}
		child.stdin!.end();
		const timer = setTimeout(() => child.kill("SIGKILL"), 2000);
		await exited;
		clearTimeout(timer);
	};
	try {
		const init = await peer.request<InitializeResult>("initialize", {
			protocolVersion: "1",
			host: { name: "pi", version: hostVersion },
			dataDir: dataDir(env),
			capabilities: { settings: false, agents: true, sessions: true, remoteEvents: true },
			payloadProviders: PAYLOAD_PROVIDERS,
		});
		return { peer, init, stop, stderrTail: () => tail };
	} catch (e) {
		await stop();
		throw e;
	}
}
