import * as kplus from 'cdk8s-plus-34';
import type { Construct } from 'constructs';
import { NATS_CREDENTIALS_DIR, NATS_CREDENTIALS_KEY, NATS_REDRIVER_CREDENTIALS_DIR } from './nats-credentials.js';
import { NATS_CLIENT_TLS_DIR, NATS_TLS_KEYS, natsClientTlsEnv } from './nats-tls.js';

// Apart from nats-credentials.ts: tools/provision.ts (the migrations Job, in the image, which prunes
// devDependencies) loads that module's permissions through partner-access.ts, and cdk8s-plus is a
// devDependency (tools/declared-dependencies.spec.ts).

/** A NATS Secret in a pod (a user's credentials, the client certificate): the volume, where it is mounted, and the settings naming its files. */
export interface NatsCredentialsMount {
  readonly volume: kplus.Volume;
  readonly path: string;
  readonly env: Readonly<Record<string, kplus.EnvValue>>;
}

/**
 * The volume of a user's credentials Secret (read-only, mode 0440: the pod's group reads it) and
 * `OPENPAW_NATS_CREDS_FILE` naming the file in it. The whole Secret is mounted (no `subPath`, which
 * the kubelet never updates), so a rotated Secret reaches the running pod.
 */
export function natsCredentialsMount(scope: Construct, id: string, secretName: string): NatsCredentialsMount {
  return secretMount(scope, id, secretName, { volumeName: 'nats-credentials', dir: NATS_CREDENTIALS_DIR, keys: [NATS_CREDENTIALS_KEY], env: { OPENPAW_NATS_CREDS_FILE: `${NATS_CREDENTIALS_DIR}/${NATS_CREDENTIALS_KEY}` } });
}

/**
 * The redriver's credentials in the gateway's pods, beside its own: `OPENPAW_NATS_REDRIVER_CREDS_FILE`
 * names the file. Optional: a cluster upgraded before its operator issued the redriver's Secret still
 * starts its gateways; only a redrive then fails, naming the unreadable file.
 */
export function natsRedriverCredentialsMount(scope: Construct, id: string, secretName: string): NatsCredentialsMount {
  return secretMount(scope, id, secretName, {
    volumeName: 'nats-redriver-credentials',
    dir: NATS_REDRIVER_CREDENTIALS_DIR,
    keys: [NATS_CREDENTIALS_KEY],
    env: { OPENPAW_NATS_REDRIVER_CREDS_FILE: `${NATS_REDRIVER_CREDENTIALS_DIR}/${NATS_CREDENTIALS_KEY}` },
    optional: true,
  });
}

/**
 * The client certificate Secret (`nats-tls.ts`: CA, certificate, key) and the three TLS settings
 * naming its files. Mounted whole (no `subPath`), so a certificate cert-manager renews reaches the
 * pod's files.
 */
export function natsTlsMount(scope: Construct, id: string, secretName: string): NatsCredentialsMount {
  return secretMount(scope, id, secretName, { volumeName: 'nats-tls', dir: NATS_CLIENT_TLS_DIR, keys: Object.values(NATS_TLS_KEYS), env: natsClientTlsEnv(NATS_CLIENT_TLS_DIR) });
}

function secretMount(
  scope: Construct,
  id: string,
  secretName: string,
  where: { volumeName: string; dir: string; keys: readonly string[]; env: Readonly<Record<string, string>>; optional?: boolean },
): NatsCredentialsMount {
  const secret = kplus.Secret.fromSecretName(scope, `${id}-secret`, secretName);
  const volume = kplus.Volume.fromSecret(scope, id, secret, {
    name: where.volumeName,
    defaultMode: 0o440,
    items: Object.fromEntries(where.keys.map((key) => [key, { path: key }])),
    ...(where.optional === true ? { optional: true } : {}),
  });
  return { volume, path: where.dir, env: Object.fromEntries(Object.entries(where.env).map(([name, value]) => [name, kplus.EnvValue.fromValue(value)])) };
}
