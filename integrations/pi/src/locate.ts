// Where the continuity binary and its data directory are. Nothing is
// downloaded: the binary comes from CONTINUITY_BIN, else from the
// per-platform optional dependency package that carries it (the way
// @openai/codex ships its native binary), else from PATH. scripts/pack-pi
// (cmd/pack) builds those packages and packs the extension with
// optionalDependencies on them.
import { appendFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir } from "node:os";
import { delimiter, dirname, join } from "node:path";

/** The optional dependency that carries the binary for this platform. */
export function platformPackage(platform: string = process.platform, arch: string = process.arch): string {
	return `@continuity-dev/continuity-${platform}-${arch}`;
}

export class BinaryNotFoundError extends Error {
	constructor(tried: string[]) {
		super(
			`continuity binary not found (tried ${tried.join(", ")}); set CONTINUITY_BIN, install ${platformPackage()}, or put continuity on PATH`,
		);
		this.name = "BinaryNotFoundError";
	}
}

/** Which of the three places gave the binary. */
export type BinarySource = "CONTINUITY_BIN" | "package" | "PATH";

export function locateBinary(env: NodeJS.ProcessEnv = process.env, from: string = import.meta.url): string {
	const exe = process.platform === "win32" ? "continuity.exe" : "continuity";
	const tried: string[] = [];
	if (env.CONTINUITY_BIN) {
		if (isFile(env.CONTINUITY_BIN)) return found(env.CONTINUITY_BIN, "CONTINUITY_BIN", env);
		throw new BinaryNotFoundError([`CONTINUITY_BIN=${env.CONTINUITY_BIN}`]);
	}
	tried.push("CONTINUITY_BIN (unset)");
	const pkg = platformPackage();
	try {
		const manifest = createRequire(from).resolve(`${pkg}/package.json`);
		const bin = join(dirname(manifest), "bin", exe);
		if (isFile(bin)) return found(bin, "package", env);
		tried.push(bin);
	} catch {
		tried.push(`${pkg} (not installed)`);
	}
	for (const dir of (env.PATH ?? "").split(delimiter)) {
		if (!dir) continue;
		const bin = join(dir, exe);
		if (isFile(bin)) return found(bin, "PATH", env);
	}
	tried.push("PATH");
	throw new BinaryNotFoundError(tried);
}

/** isFile: a directory called continuity (a checkout on PATH) is no binary. */
function isFile(path: string): boolean {
	return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
}

/**
 * found records, when CONTINUITY_TRACE is set, which binary the extension
 * runs and where it came from (a line with no requestId, unlike the
 * request lines): the way to tell an installed platform package from a
 * stray continuity on PATH.
 */
function found(bin: string, source: BinarySource, env: NodeJS.ProcessEnv): string {
	if (env.CONTINUITY_TRACE) appendFileSync(env.CONTINUITY_TRACE, `${JSON.stringify({ binary: bin, source })}\n`);
	return bin;
}

/** The data directory: CONTINUITY_DATA_DIR, else the user state directory. */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
	if (env.CONTINUITY_DATA_DIR) return env.CONTINUITY_DATA_DIR;
	if (process.platform === "win32" && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, "continuity");
	if (process.platform === "darwin") return join(homedir(), "Library", "Application Support", "continuity");
	return join(env.XDG_STATE_HOME || join(homedir(), ".local", "state"), "continuity");
}
