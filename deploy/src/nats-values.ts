/**
 * Values for the official NATS Helm chart (https://nats-io.github.io/k8s/helm/charts/, chart `nats`
 * 1.x; nats-server 2.10 or later for `sync_interval`): a 3-node cluster with JetStream on file-store
 * PVCs, fsync after every write, monitoring on 8222 (read by KEDA and Prometheus only, see
 * `nats-networkpolicy.yaml`).
 */
export function natsValues(): Record<string, unknown> {
  return {
    config: {
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
    },
    podTemplate: {
      topologySpreadConstraints: {
        'kubernetes.io/hostname': { maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' },
      },
    },
    podDisruptionBudget: { enabled: true },
    natsBox: { enabled: false },
  };
}
