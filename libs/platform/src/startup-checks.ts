import { AuthorizationError, UserAuthenticationExpiredError } from '@nats-io/nats-core';
import { connectNats, natsConnectionSettingsFromEnv, type NatsConnectionSettings } from '@openpaw/messaging';
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

/** The setting a `NATS settings: …` message is about (its first `OPENPAW_NATS_*` name). */
function settingNamedIn(message: string, fallback: string): string {
  return /OPENPAW_NATS_[A-Z_]+/.exec(message)?.[0] ?? fallback;
}

function credentialSettingOf(settings: NatsConnectionSettings): string {
  if (settings.credsFile !== undefined) return 'OPENPAW_NATS_CREDS_FILE';
  if (settings.user !== undefined) return 'OPENPAW_NATS_USER/OPENPAW_NATS_PASSWORD';
  return 'OPENPAW_NATS_USER/OPENPAW_NATS_PASSWORD (not set)';
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
      return { setting: settingNamedIn(message, 'OPENPAW_NATS_USER'), detail: message };
    }
    const servers = natsUrlFromEnv(current);
    try {
      const nc = await connectNats({
        servers,
        name: `${service}-startup-check`,
        settings,
        connectOptions: { waitOnFirstConnect: false, reconnect: false, maxReconnectAttempts: 0 },
      });
      await nc.close();
      return undefined;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof AuthorizationError || error instanceof UserAuthenticationExpiredError) {
        return { setting: credentialSettingOf(settings), detail: `the NATS server at ${servers.join(', ')} refused the credentials (${message})` };
      }
      if (message.startsWith('NATS settings:')) return { setting: settingNamedIn(message, 'OPENPAW_NATS_CREDS_FILE'), detail: message };
      return { setting: 'OPENPAW_NATS_URL', detail: `no NATS server accepted a connection at ${servers.join(', ')} (${message})` };
    }
  };
}
