// The user-facing texts, in English and Simplified Chinese, copied from the
// project's ui-contract/texts (a test keeps the copies identical). The
// locale comes from CONTINUITY_LOCALE, else LC_ALL / LC_MESSAGES / LANG.
import { readFileSync } from "node:fs";

export type Locale = "en" | "zh-CN";

const tables = new Map<Locale, Record<string, string>>();

function table(locale: Locale): Record<string, string> {
	let t = tables.get(locale);
	if (!t) {
		t = JSON.parse(readFileSync(new URL(`../texts/${locale}.json`, import.meta.url), "utf8")) as Record<string, string>;
		tables.set(locale, t);
	}
	return t;
}

export function localeFrom(env: NodeJS.ProcessEnv = process.env): Locale {
	const tag = env.CONTINUITY_LOCALE || env.LC_ALL || env.LC_MESSAGES || env.LANG || "";
	return /^zh/i.test(tag) ? "zh-CN" : "en";
}

/** Texts renders keys of one locale; an unknown key is an error, never a guess. */
export class Texts {
	readonly locale: Locale;
	constructor(locale: Locale = localeFrom()) {
		this.locale = locale;
	}

	/** has reports whether key is a text, for names the plugin may add (its tools). */
	has(key: string): boolean {
		return table(this.locale)[key] !== undefined;
	}

	t(key: string, params: Record<string, string | number> = {}): string {
		const s = table(this.locale)[key];
		if (s === undefined) throw new Error(`continuity: no text ${JSON.stringify(key)} in ${this.locale}`);
		return s.replace(/\{(\w+)\}/g, (m, name: string) => (name in params ? String(params[name]) : m));
	}

	/**
	 * counted renders key with {count} filled: its "<key>.one" form when
	 * count is 1 and the texts have one, since "1 source references" is
	 * wrong in English (every locale carries the same keys, so Chinese
	 * repeats its one form there).
	 */
	counted(key: string, count: number, params: Record<string, string | number> = {}): string {
		const one = `${key}.one`;
		return this.t(count === 1 && this.has(one) ? one : key, { ...params, count });
	}
}
