// A JSON-RPC 2.0 peer over NDJSON (one compact object per line), the
// framing `continuity serve` speaks on its stdio. Either side may send
// requests; the peer answers the plugin's requests with the handlers it is
// given and never leaves one unanswered.
import type { Readable, Writable } from "node:stream";

export type Params = Record<string, unknown>;

/** A JSON-RPC error answered by the other side, with its diagnostic code. */
export class RPCError extends Error {
	readonly code: number;
	readonly data: unknown;
	constructor(code: number, message: string, data?: unknown) {
		super(message);
		this.name = "RPCError";
		this.code = code;
		this.data = data;
	}
	/** The domain diagnostic (data.code), or "" when the error carries none. */
	get diagnostic(): string {
		const d = this.data as { code?: unknown } | undefined;
		return typeof d?.code === "string" ? d.code : "";
	}
}

/** The peer is gone: its process exited or its stdout closed. */
export class ClosedError extends Error {
	constructor(why: string) {
		super(`continuity plugin is not running: ${why}`);
		this.name = "ClosedError";
	}
}

export type RequestHandler = (params: Params) => Promise<unknown>;
/** A notification handler; a promise it returns is awaited only for its failure. */
export type NotificationHandler = (params: Params) => void | Promise<void>;

/**
 * HandlerFailure is told of a notification handler that threw, once per
 * method: the read loop goes on, and so do the other handlers.
 */
export type HandlerFailure = (method: string, err: unknown) => void;

/** A call waiting for its answer; resolving or rejecting it removes its abort listener. */
interface Pending {
	resolve(v: unknown): void;
	reject(e: Error): void;
}

/**
 * reportToStderr is the default HandlerFailure: one line on stderr that
 * names the notification and says the extension goes on without it.
 */
export function reportToStderr(method: string, err: unknown): void {
	const why = err instanceof Error ? err.message : String(err);
	process.stderr.write(
		`continuity: the extension failed handling the plugin's ${method} notification (${why}); it goes on without it and does not report this handler's later failures. This is a bug in the extension: please report it with this line.\n`,
	);
}

export class Peer {
	private nextId = 1;
	private readonly pending = new Map<number, Pending>();
	private readonly requestHandlers = new Map<string, RequestHandler>();
	private readonly notificationHandlers = new Map<string, NotificationHandler>();
	/** The start of a line not yet ended, as read, and its length in bytes. */
	private buffered: Buffer[] = [];
	private bufferedBytes = 0;
	private closed: string | undefined;
	/** The notification methods whose handler failed and was reported. */
	private readonly failedHandlers = new Set<string>();

	private readonly out: Writable;
	private readonly onHandlerFailure: HandlerFailure;

	constructor(out: Writable, input: Readable, onHandlerFailure: HandlerFailure = reportToStderr) {
		this.out = out;
		this.onHandlerFailure = onHandlerFailure;
		input.on("data", (chunk: Buffer) => this.read(chunk));
		input.on("end", () => this.close("its output ended"));
		input.on("error", (e: Error) => this.close(e.message));
		out.on("error", (e: Error) => this.close(e.message));
	}

	onRequest(method: string, h: RequestHandler): void {
		this.requestHandlers.set(method, h);
	}

	onNotification(method: string, h: NotificationHandler): void {
		this.notificationHandlers.set(method, h);
	}

	/**
	 * request sends a request and resolves with its result. `rawParams`, when
	 * given, is spliced in as the params' JSON text verbatim, so a large
	 * payload serialized once is never copied into another object. An abort
	 * of `signal` while the call waits sends `$/cancelRequest`; the listener
	 * is removed when the call settles, so one signal shared by a run's
	 * many calls holds none of those that are done.
	 */
	request<T = unknown>(method: string, params: Params | string, signal?: AbortSignal): Promise<T> {
		if (this.closed !== undefined) return Promise.reject(new ClosedError(this.closed));
		const id = this.nextId++;
		const text = typeof params === "string" ? params : JSON.stringify(params);
		return new Promise<T>((resolve, reject) => {
			const onAbort = () => this.notify("$/cancelRequest", { id });
			const unlisten = () => signal?.removeEventListener("abort", onAbort);
			this.pending.set(id, {
				resolve: (v) => {
					unlisten();
					resolve(v as T);
				},
				reject: (e) => {
					unlisten();
					reject(e);
				},
			});
			signal?.addEventListener("abort", onAbort, { once: true });
			this.write(`{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${text}}\n`);
		});
	}

	notify(method: string, params: Params): void {
		if (this.closed !== undefined) return;
		this.write(JSON.stringify({ jsonrpc: "2.0", method, params }) + "\n");
	}

	/** close fails every pending request; later calls fail at once. */
	close(why: string): void {
		if (this.closed !== undefined) return;
		this.closed = why;
		for (const p of this.pending.values()) p.reject(new ClosedError(why));
		this.pending.clear();
	}

	get isClosed(): boolean {
		return this.closed !== undefined;
	}

	private write(line: string): void {
		this.out.write(line);
	}

	/**
	 * read splits the plugin's output into lines. A line that ends in the
	 * chunk it began in — every answer but the large payloads — is
	 * dispatched as a view of the chunk, never copied (dispatch decodes it
	 * at once and keeps nothing of it); only a line that spans chunks is
	 * joined, once, at its known length.
	 */
	private read(chunk: Buffer): void {
		let start = 0;
		for (let nl = chunk.indexOf(10, start); nl >= 0; nl = chunk.indexOf(10, start)) {
			let line = chunk.subarray(start, nl);
			if (this.buffered.length > 0) {
				this.buffered.push(line);
				line = Buffer.concat(this.buffered, this.bufferedBytes + line.length);
				this.buffered = [];
				this.bufferedBytes = 0;
			}
			start = nl + 1;
			if (line.length > 0) this.dispatch(line);
		}
		if (start < chunk.length) {
			this.buffered.push(chunk.subarray(start));
			this.bufferedBytes += chunk.length - start;
		}
	}

	private dispatch(line: Buffer): void {
		let msg: { id?: number | string | null; method?: string; params?: Params; result?: unknown; error?: { code: number; message: string; data?: unknown } };
		try {
			msg = JSON.parse(line.toString("utf8"));
		} catch {
			return; // stdout carries frames only; a broken line cannot be answered
		}
		if (msg.method === undefined) {
			const p = typeof msg.id === "number" ? this.pending.get(msg.id) : undefined;
			if (!p) return;
			this.pending.delete(msg.id as number);
			if (msg.error) p.reject(new RPCError(msg.error.code, msg.error.message, msg.error.data));
			else p.resolve(msg.result);
			return;
		}
		if (msg.id === undefined || msg.id === null) {
			this.notice(msg.method, msg.params ?? {});
			return;
		}
		void this.answer(msg.id, msg.method, msg.params ?? {});
	}

	/**
	 * notice runs a notification's handler inside the read loop, guarded: a
	 * handler that throws (or whose promise rejects) is reported once, by
	 * method, and the frames after it are read and dispatched as usual.
	 */
	private notice(method: string, params: Params): void {
		const h = this.notificationHandlers.get(method);
		if (!h) return;
		try {
			const r = h(params);
			if (r instanceof Promise) r.catch((e: unknown) => this.handlerFailed(method, e));
		} catch (e) {
			this.handlerFailed(method, e);
		}
	}

	private handlerFailed(method: string, err: unknown): void {
		if (this.failedHandlers.has(method)) return;
		this.failedHandlers.add(method);
		try {
			this.onHandlerFailure(method, err);
		} catch {
			// a reporter that fails has nowhere left to report to
		}
	}

	private async answer(id: number | string, method: string, params: Params): Promise<void> {
		const h = this.requestHandlers.get(method);
		let reply: string;
		if (!h) {
			reply = JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32601, message: `method not found: ${method}` } });
		} else {
			try {
				reply = JSON.stringify({ jsonrpc: "2.0", id, result: (await h(params)) ?? {} });
			} catch (e) {
				const err = e instanceof RPCError ? e : new RPCError(-32603, (e as Error).message);
				reply = JSON.stringify({ jsonrpc: "2.0", id, error: { code: err.code, message: err.message, data: err.data } });
			}
		}
		if (this.closed === undefined) this.write(reply + "\n");
	}
}
