/*
 * What runs in the cluster, as a small typed table: one entry per service, and the lanes of a
 * service that run as their own Deployment. Until the lanes are declared in the catalog (the
 * flow-control issue), the table here is the source; a lane's consumer is `svc-<service>-<lane>`.
 */
import { RESEARCH_LIMITS } from '@openpaw/contracts';

export type ServiceName =
  | 'gateway'
  | 'coordinator'
  | 'ingestion'
  | 'retrieval'
  | 'solve'
  | 'assets'
  | 'artifacts'
  | 'research'
  | 'visual-search';

export interface Resources {
  readonly cpuRequestMillis: number;
  readonly cpuLimitMillis: number;
  readonly memoryRequestMiB: number;
  readonly memoryLimitMiB: number;
}

export interface ServiceSpec {
  readonly name: ServiceName;
  /** The HTTP port (`PORT`): API for the gateway, probes for everyone. */
  readonly port: number;
  /** Reached from outside the cluster (through the ingress controller). Only the gateway. */
  readonly public: boolean;
  /** Has a schema in PostgreSQL (migrated by the migrations Job, checked at start). */
  readonly database: boolean;
  /** PostgreSQL connections per replica (`OPENPAW_<SERVICE>_POOL_SIZE`), counted against the connection budget. */
  readonly poolSize: number;
  /**
   * Connections per replica beyond the pool, on pipelined pools of their own (`pipelinedPoolOf` in
   * libs/persistence), counted against the budget too: the coordinator's saga store opens one as large
   * as its pool, the gateway's relaxed writes one of `RELAXED_CONNECTIONS` (3).
   */
  readonly pipelinedConnections: number;
  /** Calls out of the cluster (LLMs, OCR, search APIs, GCS, JWKS/OIDC): HTTPS egress to `httpsEgress`. */
  readonly externalEgress: boolean;
  /** Stores or serves blobs (`createBlobStoreFromEnv`): gets the blob settings, and the volume when blobs live on one. */
  readonly blobs: boolean;
  readonly replicas: { readonly min: number; readonly max: number };
  readonly resources: Resources;
  /** Longest a handler runs before it acks; the drain budget on shutdown. */
  readonly drainSeconds: number;
}

export interface LaneSpec {
  readonly service: ServiceName;
  /** `video` -> Deployment `assets-video`, `OPENPAW_LANES=video`, durable `svc-assets-video`. */
  readonly lane: string;
  readonly replicas: { readonly min: number; readonly max: number };
  readonly resources: Resources;
  readonly drainSeconds: number;
  /** Pending items of work per replica before KEDA adds one (`lagThresholdInMessages` turns it into messages). */
  readonly itemThreshold: number;
}

const SMALL: Resources = { cpuRequestMillis: 100, cpuLimitMillis: 500, memoryRequestMiB: 192, memoryLimitMiB: 384 };
const MEDIUM: Resources = { cpuRequestMillis: 250, cpuLimitMillis: 1000, memoryRequestMiB: 384, memoryLimitMiB: 768 };
const HEAVY: Resources = { cpuRequestMillis: 500, cpuLimitMillis: 2000, memoryRequestMiB: 768, memoryLimitMiB: 1536 };

/**
 * Maths engine workers per solve replica (`OPENPAW_SOLVE_MATHS_WORKERS`). Pinned, not the default (the
 * node's cores less one, up to 4): the replica's memory limit below is sized for this many, and with half
 * a core a third worker would add memory, not answers. Two let a runaway solve, held to its deadline,
 * not stop the next problem.
 */
export const SOLVE_MATHS_WORKERS = 2;

/**
 * The solve service, sized from the memory bench (`bench/memory`, 2026-11-29, issue 23): 138 MB idle
 * (no engine worker and no mathjs before its first solve; ADR 0039); 287 MB after load with one warm
 * worker; the service's own process was 183 MB after load with mathjs, so a warm worker is ~110 MB.
 * The request holds the service with both workers warm (183 + 2 × 110 ≈ 400 MB). The limit holds one
 * worker at its heap cap (ENGINE_HEAP_MB, 512 MB, ~570 MB resident) beside the other warm one and the
 * service (≈ 860 MB): V8 ends that worker
 * at its own cap, and the solve is refused as "needed more than the 512 MB", before the kernel's OOM
 * killer picks a process of the pod.
 */
const SOLVE: Resources = { cpuRequestMillis: 100, cpuLimitMillis: 500, memoryRequestMiB: 448, memoryLimitMiB: 1024 };


export const SERVICES: readonly ServiceSpec[] = [
  { name: 'gateway', pipelinedConnections: 3, blobs: true, port: 3000, public: true, poolSize: 10, database: true, externalEgress: true, replicas: { min: 2, max: 10 }, resources: MEDIUM, drainSeconds: 30 },
  { name: 'coordinator', pipelinedConnections: 8, blobs: false, port: 3001, public: false, poolSize: 8, database: true, externalEgress: false, replicas: { min: 2, max: 6 }, resources: MEDIUM, drainSeconds: 10 },
  // Ingestion stays HEAVY, from measured figures: 308 MB idle and 314 MB after text problems (the service
  // and one PP-OCR worker; memory bench, 2026-11-29); reading images at c=2 its own process peaks at
  // 505–517 MiB (reading bench, bench/README.md) beside the ~125 MB OCR worker: ~650 MB, inside the
  // 768 MiB request. The limit leaves room for a second OCR worker (`OPENPAW_INGESTION_OCR_WORKERS`) and
  // the decode buffers of the largest images allowed.
  { name: 'ingestion', pipelinedConnections: 0, blobs: true, port: 3101, public: false, poolSize: 4, database: true, externalEgress: true, replicas: { min: 2, max: 8 }, resources: HEAVY, drainSeconds: 60 },
  { name: 'retrieval', pipelinedConnections: 0, blobs: false, port: 3102, public: false, poolSize: 4, database: true, externalEgress: true, replicas: { min: 2, max: 6 }, resources: HEAVY, drainSeconds: 30 },
  { name: 'solve', pipelinedConnections: 0, blobs: true, port: 3103, public: false, poolSize: 4, database: true, externalEgress: true, replicas: { min: 2, max: 10 }, resources: SOLVE, drainSeconds: 120 },
  { name: 'assets', pipelinedConnections: 0, blobs: true, port: 3104, public: false, poolSize: 4, database: true, externalEgress: true, replicas: { min: 2, max: 6 }, resources: SMALL, drainSeconds: 30 },
  { name: 'artifacts', pipelinedConnections: 0, blobs: true, port: 3105, public: false, poolSize: 4, database: true, externalEgress: true, replicas: { min: 2, max: 6 }, resources: SMALL, drainSeconds: 120 },
  { name: 'research', pipelinedConnections: 0, blobs: true, port: 3106, public: false, poolSize: 4, database: true, externalEgress: true, replicas: { min: 2, max: 6 }, resources: SMALL, drainSeconds: 120 },
  { name: 'visual-search', pipelinedConnections: 0, blobs: true, port: 3107, public: false, poolSize: 0, database: false, externalEgress: true, replicas: { min: 2, max: 6 }, resources: MEDIUM, drainSeconds: 60 },
];

/**
 * The longest a research leg runs (the spec's cap, the coordinator's default `legCapMs`; a synthesis is
 * capped lower): the research lane drains this long on a rollout. An installation that raises the leg
 * cap raises this too (`manifests.spec.ts` compares them).
 */
export const RESEARCH_LEG_CAP_SECONDS = RESEARCH_LIMITS.legCapMs / 1000;

/** Lanes that run as their own Deployment (the rest of a service's lanes run in its main Deployment). */
export const SEPARATE_LANES: readonly LaneSpec[] = [
  {
    service: 'assets',
    lane: 'video',
    replicas: { min: 1, max: 8 },
    resources: { cpuRequestMillis: 1000, cpuLimitMillis: 2000, memoryRequestMiB: 1024, memoryLimitMiB: 2048 },
    drainSeconds: 600,
    itemThreshold: 2,
  },
  {
    // Legs and syntheses (up to `RESEARCH_LEG_CAP_SECONDS`): drained to their end on a rollout, never cut and
    // called again (a leg on a model answered in one request cannot be resumed, and would be billed twice).
    service: 'research',
    lane: 'research',
    replicas: { min: 1, max: 4 },
    resources: SMALL,
    drainSeconds: RESEARCH_LEG_CAP_SECONDS,
    itemThreshold: 4,
  },
];

/** Pending items of work per replica before KEDA scales a service's main (critical) lane. */
export const DEFAULT_ITEM_THRESHOLD = 20;

/**
 * Pending items of work per replica before KEDA adds one, for the lanes whose commands take far longer
 * than a critical step (a lane not listed scales at `DEFAULT_ITEM_THRESHOLD`): a research leg or
 * synthesis runs minutes to an hour, a paper-search skill up to a minute, a priority video is awaited
 * by a user. An item is one leg, one skill, one render: a batched command (ADR 0025) carries several.
 */
const LANE_ITEM_THRESHOLDS: Readonly<Record<string, number>> = { research: 4, papersearch: 5, priorityvideo: 1, visual: 10 };

export function laneItemThreshold(lane: string): number {
  return LANE_ITEM_THRESHOLDS[lane] ?? DEFAULT_ITEM_THRESHOLD;
}

/**
 * KEDA's threshold in messages for a lane whose commands carry up to `itemsPerCommand` items. KEDA's
 * nats-jetstream scaler reads the consumer's pending messages, and a batch is one message whatever it
 * holds, so the item threshold is divided by the largest batch: with every message full, KEDA adds a
 * replica by the time `itemThreshold` items wait per replica; with smaller batches it adds one sooner
 * (over-provisions, never under). At least 1 message.
 */
export function lagThresholdInMessages(itemThreshold: number, itemsPerCommand: number): number {
  if (!Number.isInteger(itemsPerCommand) || itemsPerCommand < 1) throw new Error(`items per command must be a positive integer, got ${itemsPerCommand}`);
  return Math.max(1, Math.floor(itemThreshold / itemsPerCommand));
}

/**
 * V8's young generation per service, in MB per semi-space, where it differs from the image's
 * (`Dockerfile`: `NODE_OPTIONS=--max-semi-space-size=2`, chosen for memory). The services every step
 * passes through allocate a short-lived object graph per message; with 2 MB they collect it so often
 * that collection took 10-15 % of their busy time (CPU profiles, issue 23). With 4 MB (and the slimmer
 * access log) the hit path's copy → hit p99 went from 297, 378 to 205, 219 ms in one quiet sitting; the
 * research bench moved within its spread (bench/README.md). Each costs ~3-5 MB more resident memory;
 * retrieval, at the 150 MB line, keeps 2 MB.
 */
export const YOUNG_GENERATION_MIB: Readonly<Partial<Record<ServiceName, number>>> = { gateway: 4, coordinator: 4, research: 4 };

/**
 * How a service's containers start: `node`, its Node flags (a command-line flag wins over the image's
 * NODE_OPTIONS), its entry point. The manifests, docker-compose.yml (compose.spec.ts) and the test
 * launcher (libs/testing reads docker-compose.yml) all start a service this way.
 */
export function serviceCommand(service: ServiceName): string[] {
  const youngGeneration = YOUNG_GENERATION_MIB[service];
  return ['node', ...(youngGeneration === undefined ? [] : [`--max-semi-space-size=${youngGeneration}`]), `dist/apps/${service}/src/main.js`];
}

/** Every port a pod opens: the HTTP API/probes on the service's port, Prometheus on `METRICS_PORT`. */
export const METRICS_PORT = 9464;

/** Seconds a pod stays listed but not ready before it stops (the platform's `SHUTDOWN_GRACE_MS`). */
export const SHUTDOWN_GRACE_SECONDS = 5;

/**
 * `terminationGracePeriodSeconds`: the readiness grace, then the longest handler's drain, then a
 * margin for closing connections. Kubernetes kills the pod after it, so it must cover all three.
 */
export function terminationGraceSeconds(drainSeconds: number): number {
  return SHUTDOWN_GRACE_SECONDS + drainSeconds + 10;
}

export function serviceSpec(name: ServiceName): ServiceSpec {
  const spec = SERVICES.find((s) => s.name === name);
  if (spec === undefined) throw new Error(`unknown service ${name}`);
  return spec;
}
