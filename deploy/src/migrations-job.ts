import { Duration, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-34';
import type { Construct } from 'constructs';
import { workloadLabels } from './labels.js';
import type { NatsCredentialsMount } from './nats-credentials-mount.js';
import { RESTRICTED_CONTAINER, RESTRICTED_POD } from './security.js';

export interface MigrationsJobProps {
  readonly image: string;
  /** Plain settings, inline: as a Helm pre-install hook the Job runs before the chart's ConfigMap exists. */
  readonly natsUrl: string;
  readonly databaseUrl: kplus.EnvValue;
  readonly streamReplicas: number;
  /** The stream owner's NATS credentials (`natsCredentialsMount`), for the `streams` step only. */
  readonly natsCredentials: NatsCredentialsMount;
  /** The client certificate (`natsTlsMount`): NATS requires TLS. */
  readonly natsTls: NatsCredentialsMount;
  readonly serviceAccount: kplus.IServiceAccount;
}

/** Annotations that make Helm run the Job before an install or upgrade rolls the Deployments. */
export const HELM_PRE_HOOK = {
  'helm.sh/hook': 'pre-install,pre-upgrade',
  'helm.sh/hook-weight': '-5',
  'helm.sh/hook-delete-policy': 'before-hook-creation',
};

/**
 * The one place migrations run: `tools/migrate.js` applies every schema's migrations while holding
 * a PostgreSQL advisory lock (two Jobs never migrate at once); before it, `tools/provision.js`
 * reconciles the streams (their one owner, R3). Services only check the schema version at start.
 */
export function migrationsJob(scope: Construct, props: MigrationsJobProps): kplus.Job {
  const name = 'openpaw-migrate';
  const resources: kplus.ContainerResources = {
    cpu: { request: kplus.Cpu.millis(100), limit: kplus.Cpu.millis(500) },
    memory: { request: Size.mebibytes(128), limit: Size.mebibytes(384) },
  };
  const common = {
    image: props.image,
    imagePullPolicy: kplus.ImagePullPolicy.IF_NOT_PRESENT,
    resources,
    securityContext: RESTRICTED_CONTAINER,
  };
  return new kplus.Job(scope, 'migrations-job', {
    metadata: { name, labels: workloadLabels(name, 'migrations'), annotations: HELM_PRE_HOOK },
    podMetadata: { labels: workloadLabels(name, 'migrations') },
    backoffLimit: 6,
    activeDeadline: Duration.minutes(30),
    ttlAfterFinished: Duration.days(1),
    securityContext: RESTRICTED_POD,
    automountServiceAccountToken: false,
    serviceAccount: props.serviceAccount,
    volumes: [props.natsCredentials.volume, props.natsTls.volume],
    initContainers: [
      {
        ...common,
        name: 'streams',
        command: ['node', 'dist/tools/provision.js'],
        envVariables: {
          OPENPAW_NATS_URL: kplus.EnvValue.fromValue(props.natsUrl),
          OPENPAW_STREAMS_PROVISION: kplus.EnvValue.fromValue('reconcile'),
          OPENPAW_STREAM_REPLICAS: kplus.EnvValue.fromValue(String(props.streamReplicas)),
          OPENPAW_PROVISION_DATABASE: kplus.EnvValue.fromValue('false'),
          OPENPAW_DATABASE_URL: props.databaseUrl,
          ...props.natsCredentials.env,
          ...props.natsTls.env,
        },
        volumeMounts: [props.natsCredentials, props.natsTls].map((mount) => ({ path: mount.path, volume: mount.volume, readOnly: true })),
      },
    ],
    containers: [
      {
        ...common,
        name: 'migrate',
        command: ['node', 'dist/tools/migrate.js'],
        // After each schema, its service's role `openpaw_<schema>` (the URLs the Deployments read).
        envVariables: { OPENPAW_DATABASE_URL: props.databaseUrl, OPENPAW_DATABASE_ROLES: kplus.EnvValue.fromValue('per-service') },
      },
    ],
  });
}
