import { AuthorizationError, UserAuthenticationExpiredError } from '@nats-io/nats-core';
import { connectNats, NATS_SETTING_NAMES, natsAuthOptions, natsConnectionSettingsFromEnv, type NatsConnectionSettings } from '@openpaw/messaging';
import { isDatabaseUnavailable } from '@openpaw/persistence';
import pg from 'pg';
import { configurationProblem } from './configuration-problem.js';
import { natsUrlFromEnv } from './messaging-settings.js';

/** Why a service cannot start yet, naming the setting ops must fix. */
export interface StartupProblem {
  readonly setting: string;
  readonly detail: string;
}

/**
 * A dependency checked before the application is created, while the port answers the probes (alive,
 * not ready): undefined when it is usable, else the problem. Checked again until it passes, so the
 * service recovers once the dependency (or a Secret mounted as a file) is fixed, instead of exiting
 * and being restarted in a loop.
 */
export type StartupCheck = () => Promise<StartupProblem | undefined>;

/**
 * A startup check of settings that can only be checked by trying them (a blob directory writable, a
 * file readable): what `attempt` throws is the problem, naming the variables its message names, with
 * secret values of `env` redacted (see `configurationProblem`). Tried again until it passes.
 */
export function settingCheck(attempt: () => Promise<void>, env: () => Readonly<Record<string, string | undefined>> = () => process.env): StartupCheck {
  return async () => {
    try {
      await attempt();
      return undefined;
    } catch (error) {
      return configurationProblem(error, env());
    }
  };
}

/** The setting a `NATS settings: …` message is about (its first `OPENPAW_NATS_*` name). */
function settingNamedIn(message: string, fallback: string): string {
  return /OPENPAW_NATS_[A-Z_]+/.exec(message)?.[0] ?? fallback;
}

function credentialSettingOf(settings: NatsConnectionSettings): string {
  if (settings.credsFile !== undefined) return NATS_SETTING_NAMES.credsFile;
  const userAndPassword = `${NATS_SETTING_NAMES.user}/${NATS_SETTING_NAMES.password}`;
  if (settings.user !== undefined) return userAndPassword;
  return `${userAndPassword} (not set)`;
}

/**
 * NATS answers at `OPENPAW_NATS_URL` and accepts the service's credentials (`OPENPAW_NATS_USER`/
 * `_PASSWORD` or `OPENPAW_NATS_CREDS_FILE`, TLS files): one connection attempt per server, closed at
 * once. Read from `env` on every check, so a creds file fixed in place (a Secret volume) is picked up.
 */
export function natsStartupCheck(service: string, env: () => NodeJS.ProcessEnv = () => process.env): StartupCheck {
  return async () => {
    const current = env();
    let settings: NatsConnectionSettings;
    try {
      settings = natsConnectionSettingsFromEnv(current);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { setting: settingNamedIn(message, NATS_SETTING_NAMES.user), detail: message };
    }
    const servers = natsUrlFromEnv(current);
    const connectOnce = async (tlsVersionCap?: 'TLSv1.2'): Promise<void> => {
      // Only the capped retry builds its own TLS options (natsAuthOptions reads the creds file again).
      const tls = tlsVersionCap === undefined ? undefined : natsAuthOptions(settings).tls;
      const nc = await connectNats({
        servers,
        name: `${service}-startup-check`,
        settings,
        connectOptions: {
          waitOnFirstConnect: false,
          reconnect: false,
          maxReconnectAttempts: 0,
          // nats.js hands its `tls` object to Node's tls.connect, which reads maxVersion (nats.js's type does not list it).
          ...(tls === undefined || tls === null ? {} : { tls: { ...tls, maxVersion: tlsVersionCap } as typeof tls }),
        },
      });
      await nc.close();
    };
    try {
      await connectOnce();
      return undefined;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof AuthorizationError || error instanceof UserAuthenticationExpiredError) {
        return { setting: credentialSettingOf(settings), detail: `the NATS server at ${servers.join(', ')} refused the credentials (${message})` };
      }
      if (message.startsWith('NATS settings:')) return { setting: settingNamedIn(message, NATS_SETTING_NAMES.credsFile), detail: message };
      const tls = tlsProblem(error, message, settings, servers.join(', ')) ?? (await refusedClientCertificate(error, settings, servers.join(', '), () => connectOnce('TLSv1.2')));
      if (tls !== undefined) return tls;
      return { setting: 'OPENPAW_NATS_URL', detail: `no NATS server accepted a connection at ${servers.join(', ')} (${message})` };
    }
  };
}

/** How a TLS 1.3 client can see a server that refused its certificate: the connection closed under it, no alert read. */
const CONNECTION_CUT_CODES = new Set(['ECONNRESET', 'EPIPE']);

/**
 * With TLS 1.3 the client sends its certificate after its side of the handshake is done, so a server
 * refusing it may cut the connection before the client reads the alert: the error is then a reset,
 * indistinguishable from a server going away, and which one a check sees is a race. When TLS is set
 * and the connection was cut, one more attempt capped at TLS 1.2 (where the certificate is checked
 * inside the handshake, so the alert always arrives) tells which it was. Undefined when that attempt
 * does not show a refused certificate (it connects, the server takes no TLS 1.2, or fails otherwise).
 */
async function refusedClientCertificate(error: unknown, settings: NatsConnectionSettings, servers: string, connectCappedAtTls12: () => Promise<void>): Promise<StartupProblem | undefined> {
  if (!CONNECTION_CUT_CODES.has(errorCode(error)) || (settings.tlsCaFile === undefined && settings.tlsCertFile === undefined)) return undefined;
  try {
    await connectCappedAtTls12();
    return undefined;
  } catch (second) {
    const problem = tlsProblem(second, second instanceof Error ? second.message : String(second), settings, servers);
    return problem?.setting === NATS_SETTING_NAMES.tlsCertFile ? problem : undefined;
  }
}

function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : '';
}

/** Node's codes for a server certificate the client's CAs do not verify (or that names another host). */
const SERVER_CERTIFICATE_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_SIGNATURE_FAILURE',
  'CERT_NOT_YET_VALID',
  'CERT_HAS_EXPIRED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);
/** A TLS alert the server sends when it refuses the client's certificate (bad, missing, from a CA it does not know). */
const CLIENT_CERTIFICATE_ALERT = /^ERR_SSL_.*ALERT_(BAD_CERTIFICATE|CERTIFICATE_|UNKNOWN_CA|UNSUPPORTED_CERTIFICATE)/;

/**
 * A TLS failure named by the setting ops must fix, not by `OPENPAW_NATS_URL` (the server answered): a
 * TLS file that does not exist, a server certificate the configured CA (or, with none set, the
 * system's) does not verify, or a client certificate the server refuses. Undefined for anything else.
 */
function tlsProblem(error: unknown, message: string, settings: NatsConnectionSettings, servers: string): StartupProblem | undefined {
  const code = errorCode(error);
  const files: readonly [string, string | undefined][] = [
    [NATS_SETTING_NAMES.tlsCaFile, settings.tlsCaFile],
    [NATS_SETTING_NAMES.tlsCertFile, settings.tlsCertFile],
    [NATS_SETTING_NAMES.tlsKeyFile, settings.tlsKeyFile],
  ];
  // nats.js checks the files before dialling: "<path> doesn't exist".
  const missing = files.find(([, path]) => path !== undefined && message.includes(path));
  if (missing !== undefined) return { setting: missing[0], detail: `cannot read ${missing[1] ?? ''} (${message})` };
  if (SERVER_CERTIFICATE_CODES.has(code)) {
    const verifier = settings.tlsCaFile === undefined ? `the system's CAs do not verify (${NATS_SETTING_NAMES.tlsCaFile} is not set)` : `the CA in ${settings.tlsCaFile} does not verify`;
    return { setting: NATS_SETTING_NAMES.tlsCaFile, detail: `the NATS server at ${servers} presented a certificate ${verifier} (${code}: ${message.trim()})` };
  }
  if (CLIENT_CERTIFICATE_ALERT.test(code)) {
    const certificate = settings.tlsCertFile === undefined ? `none (${NATS_SETTING_NAMES.tlsCertFile} and ${NATS_SETTING_NAMES.tlsKeyFile} are not set)` : settings.tlsCertFile;
    return { setting: NATS_SETTING_NAMES.tlsCertFile, detail: `the NATS server at ${servers} refused the client certificate: ${certificate} (${code})` };
  }
  return undefined;
}


/** SQLSTATEs of a refused login: wrong password (28P01), unknown role or no pg_hba entry (28000). */
const REFUSED_LOGIN_CODES = new Set(['28P01', '28000']);
/** The database named in the URL does not exist. */
const UNKNOWN_DATABASE_CODE = '3D000';

/** Where a database URL points, without its password (a readiness body and a log line are not secret stores). */
function databaseLocation(url: URL): string {
  return `${url.hostname}:${url.port || '5432'}${url.pathname}`;
}

/**
 * PostgreSQL answers at the service's database URL (`OPENPAW_DATABASE_URL`) and accepts its role: one
 * connection and `select 1`, closed at once. Checked again until it passes, so the service becomes
 * ready once PostgreSQL is reachable or the role's password is set to what the Secret says, without
 * a restart. The password never appears in the problem.
 */
export function databaseStartupCheck(databaseUrl: string, options: { connectTimeoutMs?: number } = {}): StartupCheck {
  const setting = 'OPENPAW_DATABASE_URL';
  return async () => {
    let url: URL;
    try {
      url = new URL(databaseUrl);
    } catch {
      return { setting, detail: 'is not a URL (postgres://role:password@host:port/database)' };
    }
    const where = databaseLocation(url);
    const role = decodeURIComponent(url.username) || '(none)';
    const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000, application_name: 'openpaw-startup-check' });
    // An error after the connection was made (the server going away) must not be an unhandled 'error' event.
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('select 1');
      return undefined;
    } catch (error) {
      // Duck-typed: a socket error can come from another realm than this module's `Error`.
      const { code, message: raw } = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; message?: unknown };
      const message = typeof raw === 'string' ? raw : String(error);
      if (typeof code === 'string' && REFUSED_LOGIN_CODES.has(code)) {
        return { setting, detail: `PostgreSQL at ${where} refused the credentials of role "${role}" (${message})` };
      }
      if (code === UNKNOWN_DATABASE_CODE) return { setting, detail: `PostgreSQL at ${where} has no such database (${message})` };
      if (isDatabaseUnavailable(error) || /timeout/i.test(message)) {
        return { setting, detail: `no PostgreSQL accepted a connection at ${where} (${message})` };
      }
      return { setting, detail: `PostgreSQL at ${where} refused the connection (${message})` };
    } finally {
      await client.end().catch(() => undefined);
    }
  };
}
