/** Knobs of one installation; the defaults are what `deploy/k8s/` is synthesized with. */
export interface PlatformSettings {
  readonly namespace: string;
  readonly image: string;
  /** Namespace of the NATS release (official chart, `deploy/nats/values.yaml`). */
  readonly natsNamespace: string;
  /** Client URL(s) of NATS. */
  readonly natsUrl: string;
  /** NATS monitoring endpoint the KEDA scaler reads consumer lag from (host:port, no scheme). */
  readonly natsMonitoringEndpoint: string;
  /** Stream replicas the provisioning Job applies (the bootstrap of a service never changes them). */
  readonly streamReplicas: number;
  /** Where PostgreSQL lives: egress is allowed to this CIDR on 5432. */
  readonly postgresCidr: string;
  /** Namespaces allowed in: the ingress controller (to the gateway), Prometheus (metrics ports), KEDA (NATS monitoring). */
  readonly ingressNamespace: string;
  readonly monitoringNamespace: string;
  readonly kedaNamespace: string;
  /** Existing Secrets (created by ops, never by these manifests). */
  readonly secrets: { readonly database: string; readonly gatewayAuth: string; readonly providers: string };
  /** Where the collector sends traces (OTLP over HTTP). */
  readonly traceBackendEndpoint: string;
}

export const DEFAULT_SETTINGS: PlatformSettings = {
  namespace: 'openpaw',
  image: 'ghcr.io/openpaw/openpaw:0.1.0',
  natsNamespace: 'nats',
  natsUrl: 'nats://nats.nats.svc.cluster.local:4222',
  natsMonitoringEndpoint: 'nats-headless.nats.svc.cluster.local:8222',
  streamReplicas: 3,
  postgresCidr: '10.0.0.0/8',
  ingressNamespace: 'ingress-nginx',
  monitoringNamespace: 'monitoring',
  kedaNamespace: 'keda',
  secrets: { database: 'openpaw-database', gatewayAuth: 'openpaw-gateway-auth', providers: 'openpaw-providers' },
  traceBackendEndpoint: 'http://tempo.monitoring.svc.cluster.local:4318',
};
