import * as kplus from 'cdk8s-plus-34';
import type { Construct } from 'constructs';
import { NATS_CREDENTIALS_DIR, NATS_CREDENTIALS_KEY, NATS_REDRIVER_CREDENTIALS_DIR } from './nats-credentials.js';

// Apart from nats-credentials.ts: tools/provision.ts (the migrations Job, in the image, which prunes
// devDependencies) loads that module's permissions through partner-access.ts, and cdk8s-plus is a
// devDependency (tools/declared-dependencies.spec.ts).

/** A NATS user's credentials in a pod: the Secret volume, where it is mounted, and the setting naming the file. */
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
  return credentialsMount(scope, id, secretName, { volumeName: 'nats-credentials', dir: NATS_CREDENTIALS_DIR, setting: 'OPENPAW_NATS_CREDS_FILE' });
}

/**
 * The redriver's credentials in the gateway's pods, beside its own: `OPENPAW_NATS_REDRIVER_CREDS_FILE`
 * names the file. Optional: a cluster upgraded before its operator issued the redriver's Secret still
 * starts its gateways; only a redrive then fails, naming the unreadable file.
 */
export function natsRedriverCredentialsMount(scope: Construct, id: string, secretName: string): NatsCredentialsMount {
  return credentialsMount(scope, id, secretName, { volumeName: 'nats-redriver-credentials', dir: NATS_REDRIVER_CREDENTIALS_DIR, setting: 'OPENPAW_NATS_REDRIVER_CREDS_FILE', optional: true });
}

function credentialsMount(scope: Construct, id: string, secretName: string, where: { volumeName: string; dir: string; setting: string; optional?: boolean }): NatsCredentialsMount {
  const secret = kplus.Secret.fromSecretName(scope, `${id}-secret`, secretName);
  const volume = kplus.Volume.fromSecret(scope, id, secret, {
    name: where.volumeName,
    defaultMode: 0o440,
    items: { [NATS_CREDENTIALS_KEY]: { path: NATS_CREDENTIALS_KEY } },
    ...(where.optional === true ? { optional: true } : {}),
  });
  return { volume, path: where.dir, env: { [where.setting]: kplus.EnvValue.fromValue(`${where.dir}/${NATS_CREDENTIALS_KEY}`) } };
}
