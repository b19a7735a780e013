// The extension's import graph is a tree: no module reaches itself through
// its imports, type imports included (a type cycle is a cycle of meaning
// even where the runtime erases it). The walk reads index.ts and every
// module it reaches under src/, so a new file joins the check by being
// imported.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * specifiers lists the relative modules a file names: import and export
 * declarations (type-only ones too), side-effect imports, and import()
 * whether in code or in a type position.
 */
function specifiers(text: string): string[] {
	const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
	const out: string[] = [];
	const forms = [/^\s*(?:import|export)\b[^;"']*?\bfrom\s*["']([^"']+)["']/gm, /^\s*import\s*["']([^"']+)["']/gm, /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g];
	for (const re of forms) for (const m of code.matchAll(re)) if (m[1].startsWith(".")) out.push(m[1]);
	return out;
}

/** graph maps each file reached from entry to the files it imports. */
function graph(entry: string): Map<string, string[]> {
	const g = new Map<string, string[]>();
	const todo = [resolve(entry)];
	while (todo.length) {
		const f = todo.pop()!;
		if (g.has(f)) continue;
		const deps = specifiers(readFileSync(f, "utf8")).map((s) => resolve(dirname(f), s));
		g.set(f, deps);
		todo.push(...deps);
	}
	return g;
}

/** cycle is one import cycle of g (its files, the first repeated at the end), or undefined. */
function cycle(g: Map<string, string[]>): string[] | undefined {
	const state = new Map<string, "open" | "done">();
	const path: string[] = [];
	const visit = (f: string): string[] | undefined => {
		if (state.get(f) === "done") return undefined;
		if (state.get(f) === "open") return [...path.slice(path.indexOf(f)), f];
		state.set(f, "open");
		path.push(f);
		for (const d of g.get(f) ?? []) {
			const c = visit(d);
			if (c) return c;
		}
		path.pop();
		state.set(f, "done");
		return undefined;
	};
	for (const f of g.keys()) {
		const c = visit(f);
		if (c) return c;
	}
	return undefined;
}

test("the extension's import graph has no cycle, type imports included", () => {
	const g = graph(join(root, "index.ts"));
	assert.ok(g.size > 20, `the walk reached only ${g.size} files: the import forms are not being read`);
	const c = cycle(g);
	assert.equal(c, undefined, `import cycle: ${c?.map((f) => relative(root, f)).join(" → ")}`);
});

test("the walk finds a cycle made only of type imports", () => {
	const dir = mkdtempSync(join(tmpdir(), "continuity-imports-"));
	try {
		writeFileSync(join(dir, "a.ts"), 'import { b } from "./b.ts";\nexport const a = b;\n');
		writeFileSync(join(dir, "b.ts"), 'import {\n\ttype C,\n} from "./c.ts";\nexport const b = 1;\nexport type B = C;\n');
		writeFileSync(join(dir, "c.ts"), '// import "./none.ts" in a comment is not an import\nexport type C = import("./a.ts").A;\n');
		const c = cycle(graph(join(dir, "a.ts")));
		assert.deepEqual(c?.map((f) => relative(dir, f)), ["a.ts", "b.ts", "c.ts", "a.ts"]);
		writeFileSync(join(dir, "c.ts"), "export type C = number;\n");
		assert.equal(cycle(graph(join(dir, "a.ts"))), undefined);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
