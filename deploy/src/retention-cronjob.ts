import { Cron, Duration, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-34';
import type { Construct } from 'constructs';
import { workloadLabels } from './labels.js';
import { RESTRICTED_CONTAINER, RESTRICTED_POD } from './security.js';

export interface RetentionCronJobProps {
  readonly image: string;
  readonly config: kplus.IConfigMap;
  readonly databaseUrl: kplus.EnvValue;
  /** The blob volume, when blobs live on one (the archive is written there). */
  readonly blobMounts: readonly { readonly path: string; readonly volume: kplus.Volume }[];
  /** Workload identity for the bucket. */
  readonly serviceAccount: kplus.IServiceAccount;
}

/**
 * Hourly data lifecycle (`tools/retention.js`): archives the step logs of runs that ended more than
 * 30 days ago to the blob store (NDJSON per run) before deleting them; deletes dedup records, command
 * replies, the gateway's artifact job keys and timers of terminal runs past their horizons (refusing
 * a horizon shorter than the streams' age), under advisory locks, and logs every watched table's
 * size. Never two at once.
 */
export function retentionCronJob(scope: Construct, props: RetentionCronJobProps): kplus.CronJob {
  const name = 'openpaw-retention';
  const job = new kplus.CronJob(scope, 'retention-cronjob', {
    metadata: { name, labels: workloadLabels(name, 'retention') },
    podMetadata: { labels: workloadLabels(name, 'retention') },
    schedule: Cron.schedule({ minute: '17', hour: '*' }),
    concurrencyPolicy: kplus.ConcurrencyPolicy.FORBID,
    startingDeadline: Duration.minutes(10),
    backoffLimit: 2,
    activeDeadline: Duration.minutes(50),
    ttlAfterFinished: Duration.hours(6),
    securityContext: RESTRICTED_POD,
    automountServiceAccountToken: false,
    serviceAccount: props.serviceAccount,
    containers: [
      {
        name: 'retention',
        image: props.image,
        imagePullPolicy: kplus.ImagePullPolicy.IF_NOT_PRESENT,
        command: ['node', 'dist/tools/retention.js'],
        // The blob store step logs are archived to: the ConfigMap's blob settings (no provider keys).
        envFrom: [kplus.Env.fromConfigMap(props.config)],
        envVariables: {
          OPENPAW_DATABASE_URL: props.databaseUrl,
          OPENPAW_RETENTION_DEDUP: kplus.EnvValue.fromValue('14d'),
          OPENPAW_RETENTION_TERMINAL_TIMERS: kplus.EnvValue.fromValue('1h'),
          OPENPAW_RETENTION_STEP_LOGS: kplus.EnvValue.fromValue('30d'),
        },
        resources: {
          cpu: { request: kplus.Cpu.millis(50), limit: kplus.Cpu.millis(500) },
          memory: { request: Size.mebibytes(128), limit: Size.mebibytes(256) },
        },
        securityContext: RESTRICTED_CONTAINER,
      },
    ],
  });
  for (const mount of props.blobMounts) job.containers[0]?.mount(mount.path, mount.volume);
  return job;
}
