// Unit tests of where the extension finds the continuity binary: the
// order CONTINUITY_BIN → the platform package → PATH, the trace line that
// says which one answered, and BinaryNotFoundError's message naming what
// was tried. The platform package is a directory tree made here, laid out
// as npm installs it. Run with node --experimental-strip-types --test
// (integrations/pi/e2e runs them).
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { BinaryNotFoundError, locateBinary, platformPackage } from "../src/locate.ts";

const exe = process.platform === "win32" ? "continuity.exe" : "continuity";

/** A prefix as npm leaves it: the extension, perhaps its platform package (with or without the binary), and a continuity on a PATH directory. */
function prefix(t: { after(fn: () => void): void }, opts: { platformPackage: boolean; binary: boolean }) {
	const root = mkdtempSync(join(tmpdir(), "locate-test-"));
	t.after(() => rmSync(root, { recursive: true, force: true }));
	const ext = join(root, "node_modules", "@continuity-dev", "pi-continuity", "src");
	mkdirSync(ext, { recursive: true });
	const pkg = join(root, "node_modules", ...platformPackage().split("/"));
	const bin = join(pkg, "bin", exe);
	if (opts.platformPackage) {
		mkdirSync(join(pkg, "bin"), { recursive: true });
		writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: platformPackage(), version: "0.1.0" }));
		if (opts.binary) {
			writeFileSync(bin, "");
			chmodSync(bin, 0o755);
		}
	}
	const onPath = join(root, "path");
	mkdirSync(onPath);
	writeFileSync(join(onPath, exe), "");
	return { root, from: pathToFileURL(join(ext, "locate.ts")).href, bin, onPath, trace: join(root, "trace.jsonl") };
}

function traced(file: string): { binary: string; source: string }[] {
	return readFileSync(file, "utf8")
		.trim()
		.split("\n")
		.map((l) => JSON.parse(l));
}

test("the platform package beside the extension wins over PATH, and the trace says so", (t) => {
	const p = prefix(t, { platformPackage: true, binary: true });
	const got = locateBinary({ PATH: p.onPath, CONTINUITY_TRACE: p.trace }, p.from);
	assert.equal(got, p.bin);
	assert.deepEqual(traced(p.trace), [{ binary: p.bin, source: "package" }]);
});

test("CONTINUITY_BIN wins over the platform package; a CONTINUITY_BIN that does not exist is named", (t) => {
	const p = prefix(t, { platformPackage: true, binary: true });
	const mine = join(p.onPath, exe);
	assert.equal(locateBinary({ CONTINUITY_BIN: mine, CONTINUITY_TRACE: p.trace }, p.from), mine);
	assert.deepEqual(traced(p.trace), [{ binary: mine, source: "CONTINUITY_BIN" }]);
	const missing = join(p.root, "nowhere", exe);
	assert.throws(
		() => locateBinary({ CONTINUITY_BIN: missing, PATH: p.onPath }, p.from),
		(e: Error) => e instanceof BinaryNotFoundError && e.name === "BinaryNotFoundError" && e.message.includes(`tried CONTINUITY_BIN=${missing}`),
	);
});

test("without the platform package PATH answers; with neither the error names all three", (t) => {
	const p = prefix(t, { platformPackage: false, binary: false });
	const checkout = join(p.root, "src");
	mkdirSync(join(checkout, exe), { recursive: true }); // a directory called continuity is passed over
	assert.equal(locateBinary({ PATH: [checkout, p.onPath].join(delimiter), CONTINUITY_TRACE: p.trace }, p.from), join(p.onPath, exe));
	assert.deepEqual(traced(p.trace), [{ binary: join(p.onPath, exe), source: "PATH" }]);
	assert.throws(
		() => locateBinary({ PATH: join(p.root, "empty") }, p.from),
		(e: Error) =>
			e instanceof BinaryNotFoundError &&
			e.message ===
				`continuity binary not found (tried CONTINUITY_BIN (unset), ${platformPackage()} (not installed), PATH); set CONTINUITY_BIN, install ${platformPackage()}, or put continuity on PATH`,
	);
});

test("a platform package without its binary is named by the path looked at", (t) => {
	const p = prefix(t, { platformPackage: true, binary: false });
	assert.throws(
		() => locateBinary({ PATH: "" }, p.from),
		(e: Error) => e instanceof BinaryNotFoundError && e.message.includes(`tried CONTINUITY_BIN (unset), ${p.bin}, PATH`),
	);
});
