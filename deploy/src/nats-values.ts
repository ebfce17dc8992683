import { natsChartTlsValues } from './nats-tls.js';

/** The Secret ops create with the accounts block (`nats-accounts-cli.ts`: the platform's nkey users and permissions, the partners). */
export const NATS_ACCOUNTS_SECRET = 'openpaw-nats-accounts';
/** Its key, and where the NATS pods see it: beside the chart's `/etc/nats-config/nats.conf`. */
export const NATS_ACCOUNTS_KEY = 'accounts.conf';
export const NATS_ACCOUNTS_DIR = '/etc/nats-accounts';
/** nats-server resolves an include against the including file's directory (an absolute path is joined to it too). */
export const NATS_ACCOUNTS_INCLUDE = `../nats-accounts/${NATS_ACCOUNTS_KEY}`;

/**
 * Values for the official NATS Helm chart (https://nats-io.github.io/k8s/helm/charts/, chart `nats`
 * 1.x; nats-server 2.10 or later for `sync_interval`): a 3-node cluster with JetStream on file-store
 * PVCs, fsync after every write, monitoring on 8222 (read by KEDA and Prometheus only, see
 * `nats-networkpolicy.yaml`), and TLS required on the client port, client certificates verified
 * (`nats-tls.ts`; routes between the nodes stay plain TCP inside the NATS namespace).
 */
export function natsValues(): Record<string, unknown> {
  return {
    config: {
      nats: { tls: natsChartTlsValues() },
      cluster: { enabled: true, replicas: 3 },
      jetstream: {
        enabled: true,
        fileStore: { enabled: true, dir: '/data', pvc: { enabled: true, size: '20Gi' } },
        memoryStore: { enabled: false },
        // Jepsen's 2025 NATS analysis lost acknowledged writes with the default 2-minute fsync
        // interval when nodes crashed together: sync every write before it is acknowledged.
        merge: { sync_interval: 'always' },
      },
      monitor: { enabled: true, port: 8222 },
      // Accounts, users and permissions (deploy/src/nats-credentials.ts): from a Secret, so partners' passwords stay out of values.
      merge: { '00$include': NATS_ACCOUNTS_INCLUDE },
    },
    container: {
      patch: [{ op: 'add', path: '/volumeMounts/-', value: { name: 'accounts', mountPath: NATS_ACCOUNTS_DIR, readOnly: true } }],
    },
    podTemplate: {
      patch: [{ op: 'add', path: '/spec/volumes/-', value: { name: 'accounts', secret: { secretName: NATS_ACCOUNTS_SECRET } } }],
      topologySpreadConstraints: {
        'kubernetes.io/hostname': { maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' },
      },
    },
    podDisruptionBudget: { enabled: true },
    natsBox: { enabled: false },
  };
}
