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
 * STOP_DEADLINE_MS bounds stop() as a whole: the shutdown request, the
 * closed stdin and the exit. A plugin still running at the deadline is
 * killed, so pi's own exit never waits on a plugin that hangs.
 */
export const STOP_DEADLINE_MS = 2000;

export interface StartOptions {
	/** How long stop() gives the plugin before it kills it (STOP_DEADLINE_MS). */
	stopDeadlineMs?: number;
}

/**
 * start runs the plugin and initializes it. `serve` registers the host-side
 * handlers on the peer before initialize, so the plugin's first callbacks
 * (agents/get during activation) find them.
 */
export async function start(hostVersion: string, serve: (peer: Peer) => void, env: NodeJS.ProcessEnv = process.env, opts: StartOptions = {}): Promise<Started> {
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
	const stop = once(() => stopChild(child, peer, exited, opts.stopDeadlineMs ?? STOP_DEADLINE_MS));
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

/**
 * stopChild asks the plugin to shut down, closes its stdin and waits for
 * it to exit, all within deadlineMs: at the deadline the plugin is killed
 * whichever step it is in, and stop returns once it has exited.
 */
async function stopChild(child: ChildProcess, peer: Peer, exited: Promise<void>, deadlineMs: number): Promise<void> {
	let timer: NodeJS.Timeout | undefined;
	const deadline = new Promise<void>((resolve) => {
		timer = setTimeout(resolve, deadlineMs);
	});
	const killed = deadline.then(() => {
		child.kill("SIGKILL");
	});
	try {
		if (!peer.isClosed) await Promise.race([peer.request("shutdown", {}), exited, deadline]);
	} catch {
		// already gone: nothing to shut down
	}
	child.stdin!.end();
	await Promise.race([exited, killed.then(() => exited)]);
	clearTimeout(timer);
}

/** once makes f run at most once; every call gets the first call's promise. */
function once(f: () => Promise<void>): () => Promise<void> {
	let p: Promise<void> | undefined;
	return () => (p ??= f());
}
