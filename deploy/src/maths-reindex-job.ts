import { Duration, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-34';
import type { Construct } from 'constructs';
import { workloadLabels } from './labels.js';
import type { NatsCredentialsMount } from './nats-credentials-mount.js';
import { RESTRICTED_CONTAINER, RESTRICTED_POD } from './security.js';

export interface MathsReindexJobProps {
  readonly image: string;
  /** Retrieval's own database URL (`openpaw_retrieval`): the sweep reads and updates `retrieval.indexed_problems` only. */
  readonly databaseUrl: kplus.EnvValue;
  /** A preview (`--dry-run`): counts what a sweep would re-key or withdraw, writes and sends nothing. */
  readonly dryRun: boolean;
  /**
   * The sweep's (not the preview's) way to the retrieval service: withdrawals are WithdrawProblem
   * commands, sent as retrieval's own NATS user (its credentials, so its pods' ServiceAccount), over TLS.
   */
  readonly messaging?: {
    readonly natsUrl: string;
    readonly credentials: NatsCredentialsMount;
    readonly tls: NatsCredentialsMount;
    readonly serviceAccount: kplus.IServiceAccount;
  };
}

/** The Job's name: the preview and the sweep are separate Jobs, so one never replaces the other's logs. */
export function mathsReindexJobName(dryRun: boolean): string {
  return dryRun ? 'openpaw-maths-reindex-dry-run' : 'openpaw-maths-reindex';
}

/** With Helm (flag `mathsReindex.dryRun` / `mathsReindex.sweep`): run after an install or upgrade has rolled the Deployments, replaced on the next one. */
export const HELM_POST_HOOK = {
  'helm.sh/hook': 'post-install,post-upgrade',
  'helm.sh/hook-delete-policy': 'before-hook-creation',
};

/**
 * The maths reading sweep (`tools/maths-reindex.js`, issue 24, ADR 0030), on demand: not part of the
 * platform's manifests, because it must run only once every ingestion replica computes the current
 * signature version. One pod, one PostgreSQL connection (the tool's pool holds one), as retrieval's
 * own role. A failed pod is retried (`backoffLimit`): each row is one compare-and-set and re-keyed
 * rows leave the selection, so a retry resumes where the last one stopped and a finished sweep does
 * nothing. SIGTERM (deadline, deletion) stops it cleanly between rows. The Job and its logs (one JSON
 * line of counts) stay a day, then Kubernetes deletes them.
 */
export function mathsReindexJob(scope: Construct, props: MathsReindexJobProps): kplus.Job {
  const name = mathsReindexJobName(props.dryRun);
  return new kplus.Job(scope, name, {
    metadata: { name, labels: workloadLabels(name, 'maths-reindex'), annotations: HELM_POST_HOOK },
    podMetadata: { labels: workloadLabels(name, 'maths-reindex') },
    backoffLimit: 3,
    activeDeadline: Duration.hours(2),
    ttlAfterFinished: Duration.days(1),
    // Before SIGKILL: the row in flight is one short statement.
    terminationGracePeriod: Duration.seconds(30),
    securityContext: RESTRICTED_POD,
    automountServiceAccountToken: false,
    ...(props.messaging === undefined ? {} : { serviceAccount: props.messaging.serviceAccount, volumes: [props.messaging.credentials.volume, props.messaging.tls.volume] }),
    containers: [
      {
        name: 'maths-reindex',
        image: props.image,
        imagePullPolicy: kplus.ImagePullPolicy.IF_NOT_PRESENT,
        command: ['node', 'dist/tools/maths-reindex.js', ...(props.dryRun ? ['--dry-run'] : [])],
        envVariables: {
          OPENPAW_DATABASE_URL: props.databaseUrl,
          ...(props.messaging === undefined ? {} : { OPENPAW_NATS_URL: kplus.EnvValue.fromValue(props.messaging.natsUrl), ...props.messaging.credentials.env, ...props.messaging.tls.env }),
        },
        ...(props.messaging === undefined ? {} : { volumeMounts: [props.messaging.credentials, props.messaging.tls].map((mount) => ({ path: mount.path, volume: mount.volume, readOnly: true })) }),
        // One page of 500 rows in memory at a time, and the signature derivation: CPU-bound, light.
        resources: {
          cpu: { request: kplus.Cpu.millis(100), limit: kplus.Cpu.millis(1000) },
          memory: { request: Size.mebibytes(128), limit: Size.mebibytes(384) },
        },
        securityContext: RESTRICTED_CONTAINER,
      },
    ],
  });
}
