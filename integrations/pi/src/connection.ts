// The extension's one plugin process: started on first use and shared by
// every session of the pi process; a start that fails is reported by the
// caller and tried again at the next use, and a plugin that exited is
// started anew.
import type { Started } from "./plugin.ts";
import type { Peer } from "./rpc.ts";

export class Connection {
	private plugin: Started | undefined;
	private starting: Promise<Started> | undefined;
	private readonly startPlugin: () => Promise<Started>;
	private readonly started: () => void;

	/**
	 * startPlugin runs and initializes a plugin (plugin.ts start); started
	 * runs once a new plugin is initialized (the logs send their headers
	 * again).
	 */
	constructor(startPlugin: () => Promise<Started>, started: () => void) {
		this.startPlugin = startPlugin;
		this.started = started;
	}

	/** connect starts the plugin once; a failure is thrown to the caller and retried on next use. */
	async connect(): Promise<Started> {
		if (this.plugin && !this.plugin.peer.isClosed) return this.plugin;
		if (!this.starting) {
			this.starting = this.startPlugin().then(
				(s) => {
					this.plugin = s;
					this.starting = undefined;
					this.started();
					return s;
				},
				(e) => {
					this.starting = undefined;
					throw e;
				},
			);
		}
		return this.starting;
	}

	/** running is the peer of a plugin that runs now, without starting one. */
	running(): Peer | undefined {
		const peer = this.plugin?.peer;
		return peer && !peer.isClosed ? peer : undefined;
	}

	/** stop shuts the plugin down (within plugin.ts's deadline); the next connect starts a new one. */
	async stop(): Promise<void> {
		const p = this.plugin;
		this.plugin = undefined;
		await p?.stop();
	}
}
