import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { INetworkPolicyPeer } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicyPeer';
import type { INetworkPolicyEgressRule } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicyEgressRule';
import type { INetworkPolicyIngressRule } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicyIngressRule';
import type { Construct } from 'constructs';
import { PART_OF } from './labels.js';
import type { PlatformSettings } from './settings.js';
import { METRICS_PORT } from './topology.js';
import { typedObject } from './typed-object.js';

const NAMESPACE_NAME = 'kubernetes.io/metadata.name';

function inNamespace(namespace: string, podLabels?: Record<string, string>): INetworkPolicyPeer {
  return {
    namespaceSelector: { matchLabels: { [NAMESPACE_NAME]: namespace } },
    ...(podLabels === undefined ? {} : { podSelector: { matchLabels: podLabels } }),
  };
}

export interface WorkloadNetwork {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly port: number;
  readonly public: boolean;
  readonly database: boolean;
  readonly externalEgress: boolean;
  /** Whether it talks to NATS (default true; a database-only Job does not). */
  readonly messaging?: boolean;
}

/** Deny everything in the namespace unless a policy below allows it. */
export function defaultDeny(scope: Construct): void {
  typedObject<INetworkPolicy>(scope, 'default-deny', {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'default-deny' },
    spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'] },
  });
}

/**
 * One workload's traffic: in, only the ingress controller to the gateway's port and Prometheus to
 * the metrics port; out, DNS, NATS clients port (unless it has no messaging), the collector, PostgreSQL when it has a schema, and
 * public HTTPS when it calls providers.
 */
export function workloadPolicy(scope: Construct, settings: PlatformSettings, workload: WorkloadNetwork, collectorLabels: Record<string, string>): void {
  const egress: INetworkPolicyEgressRule[] = [
    { to: [inNamespace('kube-system')], ports: [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }] },
    { to: [{ podSelector: { matchLabels: collectorLabels } }], ports: [{ protocol: 'TCP', port: 4318 }] },
  ];
  if (workload.messaging !== false) egress.splice(1, 0, { to: [inNamespace(settings.natsNamespace)], ports: [{ protocol: 'TCP', port: 4222 }] });
  if (workload.database) egress.push({ to: [{ ipBlock: { cidr: settings.postgresCidr } }], ports: [{ protocol: 'TCP', port: 5432 }] });
  if (workload.externalEgress) {
    const to = settings.httpsEgress.map(({ cidr, except }) => ({ ipBlock: { cidr, ...(except === undefined || except.length === 0 ? {} : { except: [...except] }) } }));
    egress.push({ to, ports: [{ protocol: 'TCP', port: 443 }] });
  }
  const ingress: INetworkPolicyIngressRule[] = [{ from: [inNamespace(settings.monitoringNamespace)], ports: [{ protocol: 'TCP', port: METRICS_PORT }] }];
  if (workload.public) ingress.unshift({ from: [inNamespace(settings.ingressNamespace)], ports: [{ protocol: 'TCP', port: workload.port }] });
  typedObject<INetworkPolicy>(scope, `${workload.name}-netpol`, {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: workload.name },
    spec: {
      podSelector: { matchLabels: workload.labels },
      policyTypes: ['Ingress', 'Egress'],
      ingress,
      egress,
    },
  });
}

/** The collector: OTLP in from OpenPaw pods, out to the trace backend (HTTPS or in-cluster). */
export function collectorPolicy(scope: Construct, settings: PlatformSettings, collectorLabels: Record<string, string>): void {
  typedObject<INetworkPolicy>(scope, 'otel-collector-netpol', {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'otel-collector' },
    spec: {
      podSelector: { matchLabels: collectorLabels },
      policyTypes: ['Ingress', 'Egress'],
      ingress: [
        { from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/part-of': PART_OF } } }], ports: [{ protocol: 'TCP', port: 4318 }] },
        { from: [inNamespace(settings.monitoringNamespace)], ports: [{ protocol: 'TCP', port: 8888 }] },
      ],
      egress: [
        { to: [inNamespace('kube-system')], ports: [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }] },
        { to: [inNamespace(settings.monitoringNamespace)], ports: [{ protocol: 'TCP', port: 4318 }] },
      ],
    },
  });
}

/**
 * The label ops put on a partner team's namespace (`kubectl label namespace <team> openpaw.io/nats-partner=true`)
 * so its pods reach NATS's client port (ADR 0019; contracts/README.md, "Partner access"). It opens the
 * network only: what a partner may do there is its NATS account's (`natsAccountsConfig`), and only the
 * client port opens (not routes, not monitoring).
 */
export const NATS_PARTNER_NAMESPACE_LABEL = { key: 'openpaw.io/nats-partner', value: 'true' } as const;

/**
 * For the NATS namespace (the official chart ships none): clients only on 4222 from OpenPaw and from
 * partner namespaces (`NATS_PARTNER_NAMESPACE_LABEL`), routes on 6222 between NATS pods, the monitoring
 * port 8222 only for KEDA and Prometheus (closed to everything else, the OpenPaw pods included).
 */
export function natsPolicy(scope: Construct, settings: PlatformSettings): void {
  const natsPods = { 'app.kubernetes.io/name': 'nats' };
  typedObject<INetworkPolicy>(scope, 'nats-netpol', {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: 'nats', namespace: settings.natsNamespace },
    spec: {
      podSelector: { matchLabels: natsPods },
      policyTypes: ['Ingress'],
      ingress: [
        { from: [inNamespace(settings.namespace), { namespaceSelector: { matchLabels: { [NATS_PARTNER_NAMESPACE_LABEL.key]: NATS_PARTNER_NAMESPACE_LABEL.value } } }], ports: [{ protocol: 'TCP', port: 4222 }] },
        { from: [{ podSelector: { matchLabels: natsPods } }], ports: [{ protocol: 'TCP', port: 6222 }, { protocol: 'TCP', port: 4222 }] },
        { from: [inNamespace(settings.kedaNamespace), inNamespace(settings.monitoringNamespace)], ports: [{ protocol: 'TCP', port: 8222 }] },
      ],
    },
  });
}
