// The account a request is made with, as the plugin learns it: a SHA-256
// digest of the provider's stable credential. pi has no login event, so a
// switch shows as a different digest at the next request. The raw
// credential never leaves this file.
import { createHash } from "node:crypto";

/** A stored credential as both pi lines keep it. */
type Credential = { type: string; refresh?: unknown; key?: unknown } | undefined;

type Fn = (...args: unknown[]) => unknown;

function method(obj: unknown, name: string): Fn | undefined {
	const f = (obj as Record<string, unknown> | null | undefined)?.[name];
	return typeof f === "function" ? (f as Fn).bind(obj) : undefined;
}

/**
 * stored reads the provider's stored credential: pi 0.73 keeps it in
 * modelRegistry.authStorage (get), pi 1.x in the registry's runtime
 * credentials (read, async).
 */
async function stored(registry: unknown, provider: string): Promise<Credential> {
	const reg = registry as { authStorage?: unknown; runtime?: { credentials?: unknown } };
	const get = method(reg.authStorage, "get");
	if (get) return get(provider) as Credential;
	const read = method(reg.runtime?.credentials, "read");
	if (read) return (await read(provider)) as Credential;
	return undefined;
}

/** resolved is the key pi would send (environment, --api-key) when nothing is stored. */
async function resolved(registry: unknown, provider: string): Promise<string | undefined> {
	const reg = registry as { authStorage?: unknown };
	const getApiKey = method(reg.authStorage, "getApiKey");
	if (getApiKey) return (await getApiKey(provider)) as string | undefined;
	const forProvider = method(registry, "getApiKeyForProvider");
	if (forProvider) return (await forProvider(provider)) as string | undefined;
	return undefined;
}

/**
 * accountDigest is the hex SHA-256 of the provider and the credential that
 * stays the same while the account does: an OAuth login's refresh token (its
 * access token rotates), a stored API key, else the key pi resolves from the
 * environment (COPILOT_GITHUB_TOKEN / GH_TOKEN / GITHUB_TOKEN, OPENAI_API_KEY)
 * or --api-key. undefined when pi has no credential for the provider.
 */
export async function accountDigest(registry: unknown, provider: string): Promise<string | undefined> {
	const cred = await stored(registry, provider);
	let stable: string | undefined;
	if (cred?.type === "oauth" && typeof cred.refresh === "string" && cred.refresh) stable = cred.refresh;
	else if (cred?.type === "api_key" && typeof cred.key === "string" && cred.key) stable = cred.key;
	else stable = await resolved(registry, provider);
	if (!stable) return undefined;
	return createHash("sha256").update("continuity-account\0").update(provider).update("\0").update(stable).digest("hex");
}
