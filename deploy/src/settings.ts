import { type Resources, SEPARATE_LANES, SERVICES } from './topology.js';

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
  /**
   * PostgreSQL connections the platform may hold at most: every Deployment's pool size × its maximum
   * replicas, plus the Jobs'. The policy refuses manifests above it; PostgreSQL's `max_connections`
   * must exceed it (plus `superuser_reserved_connections` and whatever else connects).
   */
  readonly postgresConnectionBudget: number;
  /** Namespaces allowed in: the ingress controller (to the gateway), Prometheus (metrics ports), KEDA (NATS monitoring). */
  readonly ingressNamespace: string;
  readonly monitoringNamespace: string;
  readonly kedaNamespace: string;
  /**
   * Existing Secrets (created by ops, never by these manifests). `keyOpening` holds what opens users'
   * sealed keys (`OPENPAW_KEY_SEALING_PRIVATE_KEY`, and `OPENPAW_KEY_ENCRYPTION_KEY` while `v1` keys
   * remain): it reaches the research service alone (the policy checks it).
   */
  readonly secrets: {
    readonly database: string;
    readonly gatewayAuth: string;
    /**
     * Prefix of the provider keys' Secrets, one per purpose: `<prefix>-<purpose>` (`llm`, `embedder`,
     * `scholarly`, `visual`, `ocr`), each holding only that purpose's keys (`PROVIDER_CREDENTIALS`).
     */
    readonly providersPrefix: string;
    readonly keyOpening: string;
    /**
     * Prefix of the NATS credentials Secrets: `<prefix>-<user>` for each of `NATS_USERS` (every
     * service, and `provisioner` for the migrations Job), key `nats.creds` (deploy/src/nats-credentials.ts).
     */
    readonly natsCredentialsPrefix: string;
    /**
     * The client certificate every workload that connects to NATS mounts (keys `ca.crt`, `tls.crt`,
     * `tls.key`: deploy/src/nats-tls.ts); NATS requires TLS and verifies it.
     */
    readonly natsTls: string;
  };
  /** Where the collector sends traces (OTLP over HTTP). */
  readonly traceBackendEndpoint: string;
  /** The gateway's public entry: an Ingress of this class for this host, TLS from this Secret. */
  readonly ingress: { readonly className: string; readonly host: string; readonly tlsSecretName: string };
  /** The `release` label the Prometheus Operator's serviceMonitorSelector matches (kube-prometheus-stack: its release name). */
  readonly monitoringRelease: string;
  /**
   * LLM spend (USD, the price table's cost of answered calls, users' own keys included) over the last
   * hour, platform-wide, above which `OpenPawLlmCostHigh` fires: a decimal number, from the budget.
   * A string because the chart substitutes it as a `.Values` token.
   */
  readonly llmCostAlertUsdPerHour: string;
  /**
   * Where blobs live, explicitly (the root filesystem is read-only, so the local default cannot be
   * used): a GCS bucket reached with workload identity, or a ReadWriteMany volume claim mounted at
   * `BLOB_VOLUME_PATH` in every workload that stores or serves blobs.
   */
  readonly blobs: GcsBlobs | VolumeBlobs;
  /** Destinations of HTTPS (TCP 443) egress, for the workloads that call out (providers, GCS, JWKS/OIDC) only. */
  readonly httpsEgress: readonly { readonly cidr: string; readonly except?: readonly string[] }[];
  /**
   * Workload identity: the annotation every ServiceAccount carries (GKE's by default) and, per owner of
   * an account (`SERVICE_ACCOUNT_OWNERS`: each service, and the retention CronJob), the cloud identity
   * it names. A Helm value per account (`workloadIdentity.<owner>`).
   */
  readonly workloadIdentity: { readonly annotation: string; readonly accounts: Readonly<Record<string, string>> };
  /**
   * Requests and limits of each Deployment's container, by Deployment name (`gateway`, …,
   * `assets-video`), as Kubernetes quantities; the defaults come from `topology.ts`. A Helm value each
   * (`resources.<deployment>.cpuRequest`, …).
   */
  readonly resources: Readonly<Record<string, ResourceQuantities>>;
}

export interface GcsBlobs {
  readonly kind: 'gcs';
  readonly bucket: string;
  readonly projectId: string;
}

export interface VolumeBlobs {
  readonly kind: 'volume';
  /** An existing ReadWriteMany PersistentVolumeClaim (created by ops). */
  readonly claimName: string;
  /** Public base URL of share links the gateway serves (`OPENPAW_BLOB_SHARE_BASE_URL`). */
  readonly shareBaseUrl: string;
}

/**
 * Who gets a ServiceAccount of its own (`openpaw-<owner>`): every service (its lanes run as it), the
 * retention CronJob and the migrations Job (the one holder of the stream owner's NATS credentials).
 */
export const SERVICE_ACCOUNT_OWNERS: readonly string[] = [...SERVICES.map((service) => service.name), 'retention', 'migrate'];

export interface ResourceQuantities {
  readonly cpuRequest: string;
  readonly cpuLimit: string;
  readonly memoryRequest: string;
  readonly memoryLimit: string;
}

function quantitiesOf(resources: Resources): ResourceQuantities {
  return {
    cpuRequest: `${resources.cpuRequestMillis}m`,
    cpuLimit: `${resources.cpuLimitMillis}m`,
    memoryRequest: `${resources.memoryRequestMiB}Mi`,
    memoryLimit: `${resources.memoryLimitMiB}Mi`,
  };
}

/** Each Deployment's default requests and limits: its service's, or its separate lane's, from `topology.ts`. */
export const DEFAULT_RESOURCES: Readonly<Record<string, ResourceQuantities>> = Object.fromEntries([
  ...SERVICES.map((service) => [service.name, quantitiesOf(service.resources)] as const),
  ...SEPARATE_LANES.map((lane) => [`${lane.service}-${lane.lane}`, quantitiesOf(lane.resources)] as const),
]);

/** Where a blob volume is mounted (`OPENPAW_BLOB_DIR`). */
export const BLOB_VOLUME_PATH = '/var/lib/openpaw/blobs';

export const DEFAULT_SETTINGS: PlatformSettings = {
  namespace: 'openpaw',
  image: 'ghcr.io/openpaw/openpaw:0.1.0',
  natsNamespace: 'nats',
  natsUrl: 'nats://nats.nats.svc.cluster.local:4222',
  natsMonitoringEndpoint: 'nats-headless.nats.svc.cluster.local:8222',
  streamReplicas: 3,
  postgresCidr: '10.0.0.0/8',
  postgresConnectionBudget: 450,
  ingressNamespace: 'ingress-nginx',
  monitoringNamespace: 'monitoring',
  kedaNamespace: 'keda',
  secrets: { database: 'openpaw-database', gatewayAuth: 'openpaw-gateway-auth', providersPrefix: 'openpaw-providers', keyOpening: 'openpaw-key-opening', natsCredentialsPrefix: 'openpaw-nats', natsTls: 'openpaw-nats-tls' },
  traceBackendEndpoint: 'http://tempo.monitoring.svc.cluster.local:4318',
  ingress: { className: 'nginx', host: 'openpaw.example.com', tlsSecretName: 'openpaw-tls' },
  monitoringRelease: 'kube-prometheus-stack',
  llmCostAlertUsdPerHour: '20',
  blobs: { kind: 'gcs', bucket: 'openpaw-blobs', projectId: 'openpaw' },
  // The internet, not the cluster's private ranges.
  httpsEgress: [{ cidr: '0.0.0.0/0', except: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16'] }],
  resources: DEFAULT_RESOURCES,
  workloadIdentity: {
    annotation: 'iam.gke.io/gcp-service-account',
    accounts: Object.fromEntries(SERVICE_ACCOUNT_OWNERS.map((owner) => [owner, `openpaw-${owner}@openpaw.iam.gserviceaccount.com`])),
  },
};

/** The blob settings every workload that stores or serves blobs gets (in the shared ConfigMap). */
export function blobEnv(blobs: PlatformSettings['blobs']): Record<string, string> {
  return blobs.kind === 'gcs'
    ? { OPENPAW_GCS_BUCKET: blobs.bucket, OPENPAW_GCS_PROJECT_ID: blobs.projectId }
    : { OPENPAW_BLOB_DIR: BLOB_VOLUME_PATH, OPENPAW_BLOB_SHARE_BASE_URL: blobs.shareBaseUrl };
}
