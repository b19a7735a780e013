// The omission rule a person chose for the extension (`/continuity rule
// provenance|turn`): one small file in the data directory, read at every
// admitted request so that every pi process of the person follows the
// latest choice. Absent, the rule is "turn", the plugin's own; a file that
// does not read is reported and the turn rule applies, since it omits at
// least what provenance omits within a turn's history.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dataDir } from "./locate.ts";
import { RULES, type Rule } from "./provenance.ts";

export const RULE_FILE = "pi-omission-rule.json";

export interface RuleSetting {
	rule: Rule;
	/** unreadable: the file exists but does not say a rule (the turn rule applies). */
	unreadable?: true;
}

function file(env: NodeJS.ProcessEnv): string {
	return join(dataDir(env), RULE_FILE);
}

/** readRule reads the person's rule. */
export function readRule(env: NodeJS.ProcessEnv = process.env): RuleSetting {
	let text: string;
	try {
		text = readFileSync(file(env), "utf8");
	} catch (e) {
		if ((e as NodeJS.ErrnoException).code === "ENOENT") return { rule: "turn" };
		return { rule: "turn", unreadable: true };
	}
	try {
		const rule = (JSON.parse(text) as { rule?: unknown }).rule;
		if (RULES.includes(rule as Rule)) return { rule: rule as Rule };
	} catch {
		// reported below as unreadable
	}
	return { rule: "turn", unreadable: true };
}

/** writeRule saves the rule whole (a temporary file renamed over the old one). */
export function writeRule(rule: Rule, env: NodeJS.ProcessEnv = process.env): void {
	const dir = dataDir(env);
	mkdirSync(dir, { recursive: true, mode: 0o700 });
	const tmp = `${file(env)}.${process.pid}.tmp`;
	writeFileSync(tmp, `${JSON.stringify({ rule })}\n`, { mode: 0o600 });
	renameSync(tmp, file(env));
}

/**
 * ruleReader reads the rule at each call (readRule). An unreadable setting
 * is told to `unreadable` once in the reader's life, so a bad file is said
 * once, not at every request; the turn rule applies meanwhile.
 */
export function ruleReader(unreadable: () => void, env: NodeJS.ProcessEnv = process.env): () => Rule {
	let told = false;
	return () => {
		const r = readRule(env);
		if (r.unreadable && !told) {
			told = true;
			unreadable();
		}
		return r.rule;
	};
}
