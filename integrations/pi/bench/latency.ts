// latency.ts measures what the extension adds to one provider request —
// agent/request and llm/payload to the real `continuity serve`, with the
// body serialized into the params and the filtered body parsed back, as
// before_provider_request does — next to an in-process TypeScript filter of
// the same payload object (the DSH Copilot plugin's algorithm: SHA-256 of
// each top-level reasoning item's encrypted_content, the turn's baseline
// dropped), in the same run. Each sample is a turn's first request in a
// continued session with the policy on, so all earlier reasoning is omitted.
// Both forms are measured: the body form (the whole body to the plugin and
// its bytes back) and the digest form (llm/payloadDigest: per-item digests
// only, the body stays an object). The extension sends agent/request at
// turn_start, before pi builds the request, so at the payload hook only the
// filter's round trip is left: digestNs times the request as the hook sees
// it (admission already answered), admittedDigestNs the admission too —
// the hook then hashes while the admission travels, as the extension's
// does (describeAhead). Both run the extension's own functions.
//
//   node --experimental-strip-types latency.ts [--sizes 1,16,64] [--runs N]
//
// Each run measures every form once, the in-process filter and the two
// digest forms in an order that rotates from run to run; the first run is
// a warm-up.
//
// CONTINUITY_BIN names the binary. One JSON line per size on stdout:
// {mib, bytes, items, omitted, inProcessNs, bodyNs, digestNs, admittedDigestNs}
// (each a list of nanoseconds).
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeAhead, filterDigest } from "../src/digest.ts";
import { filterPayload, type RequestRef, sendAdmission } from "../src/payload.ts";
import { PAYLOAD_PROVIDERS, start } from "../src/plugin.ts";
import type { Peer } from "../src/rpc.ts";

interface Item {
	type?: string;
	role?: string;
	encrypted_content?: unknown;
	[k: string]: unknown;
}
interface Body {
	input: Item[];
	[k: string]: unknown;
}

/** payload builds a pi-ai-shaped Responses body of about mib MiB of history. */
export function payload(mib: number): Body {
	const input: Item[] = [];
	let size = 0;
	for (let n = 1; size < mib * 1024 * 1024; n++) {
		const cipher = `gAAAAAB${randomBytes(10500).toString("base64url")}`;
		const output = `file-${n}.go\n`.repeat(180);
		input.push({ role: "user", content: [{ type: "input_text", text: `step ${n}: list the files and explain them` }] });
		input.push({ type: "reasoning", id: `rs_${n}`, summary: [{ type: "summary_text", text: `**Step ${n}**\n\nThinking.` }], encrypted_content: cipher });
		input.push({ type: "function_call", id: `fc_${n}`, call_id: `call_${n}`, name: "read", arguments: JSON.stringify({ path: `file-${n}.go` }) });
		input.push({ type: "function_call_output", call_id: `call_${n}`, output });
		size += cipher.length + output.length + 400;
	}
	return { model: "gpt-5.3-codex", input, stream: true, store: false, include: ["reasoning.encrypted_content"], reasoning: { effort: "medium", summary: "auto" } };
}

/** inProcess is the DSH plugin's filter on the body object: a turn's first payload. */
export function inProcess(body: Body): { body: Body; omitted: number } {
	const prints = body.input.map((it) =>
		it.type === "reasoning" && typeof it.encrypted_content === "string" ? createHash("sha256").update(it.encrypted_content).digest("hex") : null,
	);
	const baseline = new Set(prints.filter((p) => p !== null));
	let omitted = 0;
	const input = body.input.filter((_, i) => {
		const keep = prints[i] === null || !baseline.has(prints[i] as string);
		if (!keep) omitted++;
		return keep;
	});
	return { body: { ...body, input }, omitted };
}

function serve(peer: Peer, sessionId: string, createdAt: number): void {
	peer.onRequest("agents/get", async () => ({ sessionId, header: { createdAt, isSeeded: false }, status: "running" }));
	peer.onRequest("session/read", async () => ({ events: [], complete: true }));
}

async function main(argv: string[]): Promise<void> {
	let sizes = [1, 16, 64];
	let runs = 5;
	for (let i = 0; i < argv.length; i++) {
		if (argv[i] === "--sizes") sizes = argv[++i].split(",").map(Number);
		else if (argv[i] === "--runs") runs = Number(argv[++i]);
	}
	const dir = mkdtempSync(join(tmpdir(), "continuity-pi-bench-"));
	const sessionId = "bench-session";
	// Born after the plugin's first activation: the creation-time default (on) applies.
	const createdAt = Date.now() + 60_000;
	const plugin = await start("bench", (peer) => serve(peer, sessionId, createdAt), { ...process.env, CONTINUITY_DATA_DIR: dir });
	const peer = plugin.peer;
	let seq = 0;
	let turn = 0;
	let enabled = false; // the session's last admission, as requests.ts keeps it
	const event = (type: string, data: Record<string, unknown>) =>
		peer.notify("session/event", { sessionId, event: { type, seq: seq++, time: Date.now(), data }, header: { createdAt, isSeeded: false } });
	try {
		if (!plugin.init.capabilities.payloadFilter.providers.includes(PAYLOAD_PROVIDERS[0])) throw new Error("the plugin did not accept pi's providers");
		for (const mib of sizes) {
			const body = payload(mib);
			const bytes = Buffer.byteLength(JSON.stringify(body));
			const inProcessNs: number[] = [];
			const bodyNs: number[] = [];
			const digestNs: number[] = [];
			const admittedDigestNs: number[] = [];
			let omitted = -1;
			// One turn: admission, then the request in the given form.
			const request = async (form: "body" | "digest", pipelined: boolean): Promise<{ ns: number; input: number; omitted: number }> => {
				turn++;
				event("turn/start", { turn });
				event("step/start", { turn, step: 1 });
				const ref: RequestRef = { sessionId, turn, step: 1, requestId: `bench-${turn}`, provider: PAYLOAD_PROVIDERS[0], model: "gpt-5.3-codex" };
				let t = process.hrtime.bigint();
				const pending = sendAdmission(peer, ref); // turn_start
				if (pipelined) {
					await pending.result;
					t = process.hrtime.bigint();
				}
				// The payload hook, as requests.ts runs it.
				const early = form === "digest" ? describeAhead(pending, body, enabled) : undefined;
				const admission = await pending.result;
				enabled = admission?.enabled === true;
				let sent: Body;
				let n: number;
				if (form === "body") {
					const res = await filterPayload(peer, ref, body);
					sent = res.payload as Body;
					n = res.omitted.items;
				} else {
					const res = await filterDigest(peer, ref, body, early);
					sent = res.body as Body;
					n = res.res.omitted.items;
				}
				const ns = Number(process.hrtime.bigint() - t);
				event("turn/end", { turn, reason: { kind: "completed" } });
				if (!admission?.enabled || !sent) throw new Error(`turn ${turn} (${form}): admission ${JSON.stringify(admission)}, nothing filtered`);
				return { ns, input: sent.input.length, omitted: n };
			};
			const measureLocal = () => {
				const t = process.hrtime.bigint();
				const local = inProcess(body);
				return { local, ns: Number(process.hrtime.bigint() - t) };
			};
			for (let r = 0; r <= runs; r++) {
				// The body form first: the garbage of its whole-body copies
				// then falls on the next measurement, and which one that is
				// (the in-process filter or a digest form) rotates with r,
				// as does the order of the other three.
				const viaBody = await request("body", true);
				const order = [0, 1, 2].map((k) => (k + r) % 3);
				let inProc: { local: ReturnType<typeof inProcess>; ns: number } | undefined;
				let viaDigest: { ns: number; input: number; omitted: number } | undefined;
				let viaAdmitted: { ns: number; input: number; omitted: number } | undefined;
				for (const k of order) {
					if (k === 0) inProc = measureLocal();
					else if (k === 1) viaDigest = await request("digest", true);
					else viaAdmitted = await request("digest", false);
				}
				if (!inProc || !viaDigest || !viaAdmitted) throw new Error("a form was not measured");
				const { local, ns: localNs } = inProc;
				for (const [form, got] of [["body", viaBody], ["digest", viaDigest], ["digest", viaAdmitted]] as const) {
					if (got.omitted !== local.omitted || got.input !== local.body.input.length) {
						throw new Error(`${form} form: the plugin omitted ${got.omitted} items, the in-process filter ${local.omitted}`);
					}
				}
				omitted = local.omitted;
				if (r === 0) continue; // warm-up
				inProcessNs.push(localNs);
				bodyNs.push(viaBody.ns);
				digestNs.push(viaDigest.ns);
				admittedDigestNs.push(viaAdmitted.ns);
			}
			process.stdout.write(`${JSON.stringify({ mib, bytes, items: body.input.length, omitted, inProcessNs, bodyNs, digestNs, admittedDigestNs })}\n`);
		}
	} finally {
		await plugin.stop();
		rmSync(dir, { recursive: true, force: true });
	}
}

await main(process.argv.slice(2));
