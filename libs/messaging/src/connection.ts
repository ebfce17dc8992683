import { readFileSync } from 'node:fs';
import { type ConnectionOptions, credsAuthenticator, type NatsConnection } from '@nats-io/nats-core';
import { connect } from '@nats-io/transport-node';

/**
 * How a service authenticates to NATS and secures the connection: service settings, read from the
 * environment (Secrets in Kubernetes). Unset: no auth, plain TCP (local nats-server).
 */
export interface NatsConnectionSettings {
  /** `OPENPAW_NATS_USER` + `OPENPAW_NATS_PASSWORD`: a user of the server's accounts config. */
  readonly user?: string;
  readonly password?: string;
  /** `OPENPAW_NATS_CREDS_FILE`: a `.creds` file (user JWT + nkey seed); excludes user/password. */
  readonly credsFile?: string;
  /** `OPENPAW_NATS_TLS_CA_FILE`: verify the server against this CA (implies TLS). */
  readonly tlsCaFile?: string;
  /** `OPENPAW_NATS_TLS_CERT_FILE` + `OPENPAW_NATS_TLS_KEY_FILE`: a client certificate (mutual TLS). */
  readonly tlsCertFile?: string;
  readonly tlsKeyFile?: string;
}

/** Each NATS setting's environment name: what a refusal or a startup check names for ops to fix. */
export const NATS_SETTING_NAMES = {
  user: 'OPENPAW_NATS_USER',
  password: 'OPENPAW_NATS_PASSWORD',
  credsFile: 'OPENPAW_NATS_CREDS_FILE',
  tlsCaFile: 'OPENPAW_NATS_TLS_CA_FILE',
  tlsCertFile: 'OPENPAW_NATS_TLS_CERT_FILE',
  tlsKeyFile: 'OPENPAW_NATS_TLS_KEY_FILE',
} as const satisfies Record<keyof NatsConnectionSettings, string>;

/** The NATS connection settings from env; throws naming the setting when they do not fit together. */
export function natsConnectionSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): NatsConnectionSettings {
  const settings: Record<string, string> = {};
  for (const [key, name] of Object.entries(NATS_SETTING_NAMES)) {
    const value = env[name]?.trim();
    if (value !== undefined && value !== '') settings[key] = value;
  }
  const result = settings as NatsConnectionSettings;
  if ((result.user === undefined) !== (result.password === undefined)) {
    throw new Error(`NATS settings: ${NATS_SETTING_NAMES.user} and ${NATS_SETTING_NAMES.password} go together (one of them is empty)`);
  }
  if (result.credsFile !== undefined && result.user !== undefined) {
    throw new Error(`NATS settings: set ${NATS_SETTING_NAMES.credsFile} or ${NATS_SETTING_NAMES.user}/${NATS_SETTING_NAMES.password}, not both`);
  }
  if ((result.tlsCertFile === undefined) !== (result.tlsKeyFile === undefined)) {
    throw new Error(`NATS settings: ${NATS_SETTING_NAMES.tlsCertFile} and ${NATS_SETTING_NAMES.tlsKeyFile} go together`);
  }
  return result;
}

/** nats.js options for these settings (credentials and TLS); empty for none. */
export function natsAuthOptions(settings: NatsConnectionSettings): Partial<ConnectionOptions> {
  const options: Partial<ConnectionOptions> = {};
  if (settings.user !== undefined) Object.assign(options, { user: settings.user, pass: settings.password });
  if (settings.credsFile !== undefined) {
    const path = settings.credsFile;
    let creds: Uint8Array;
    try {
      creds = readFileSync(path);
    } catch (error) {
      throw new Error(`NATS settings: ${NATS_SETTING_NAMES.credsFile} ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
    // Read again at every (re)connect, so rotated credentials (a Secret volume updated in place) are
    // used without a restart; a file caught mid-swap or gone keeps the last one read.
    options.authenticator = credsAuthenticator(() => {
      try {
        creds = readFileSync(path);
      } catch {
        // keep the last credentials read
      }
      return creds;
    });
  }
  if (settings.tlsCaFile !== undefined || settings.tlsCertFile !== undefined) {
    options.tls = {
      ...(settings.tlsCaFile === undefined ? {} : { caFile: settings.tlsCaFile }),
      ...(settings.tlsCertFile === undefined ? {} : { certFile: settings.tlsCertFile, keyFile: settings.tlsKeyFile }),
    };
  }
  return options;
}

export interface ConnectNatsOptions {
  /** One URL or a list (`nats://host:4222`). */
  readonly servers: string | readonly string[];
  /** The connection name the server shows in monitoring: the service name. */
  readonly name: string;
  /** Credentials and TLS; default: from env (`natsConnectionSettingsFromEnv`). */
  readonly settings?: NatsConnectionSettings;
  /** Anything else nats.js accepts; overrides the defaults below. */
  readonly connectOptions?: Partial<ConnectionOptions>;
}

/**
 * Connects to NATS with settings fit for a long-running service: reconnect forever
 * with a jittered wait, and detect a dead server within about a minute (ping every 20 s, 3 missed).
 * The first connect waits too (flow control: a service starts while NATS is down, reports not ready,
 * and carries on when it returns); pass `waitOnFirstConnect: false` to fail fast instead.
 */
export async function connectNats(options: ConnectNatsOptions): Promise<NatsConnection> {
  return connect({
    servers: typeof options.servers === 'string' ? options.servers : [...options.servers],
    name: options.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 1_000,
    reconnectJitter: 500,
    pingInterval: 20_000,
    maxPingOut: 3,
    timeout: 5_000,
    // Capturing a stack for every request (each JetStream publish is one) costs more CPU than the
    // publish itself at thousands per second; errors keep their messages.
    noAsyncTraces: true,
    waitOnFirstConnect: true,
    ...natsAuthOptions(options.settings ?? natsConnectionSettingsFromEnv()),
    ...options.connectOptions,
  });
}

/** Tracks whether a connection is currently up (for readiness probes). */
export class ConnectionState {
  #connected: boolean;
  readonly #nc: NatsConnection;

  constructor(nc: NatsConnection) {
    this.#nc = nc;
    this.#connected = !nc.isClosed();
    void this.#watch();
  }

  /** True while connected; false while reconnecting, draining or closed. */
  isConnected(): boolean {
    return this.#connected && !this.#nc.isClosed() && !this.#nc.isDraining();
  }

  async #watch(): Promise<void> {
    try {
      for await (const status of this.#nc.status()) {
        switch (status.type) {
          case 'disconnect':
          case 'reconnecting':
          case 'staleConnection':
            this.#connected = false;
            break;
          case 'reconnect':
            this.#connected = true;
            break;
          default:
            break;
        }
      }
    } finally {
      this.#connected = false;
    }
  }
}
