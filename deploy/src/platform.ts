import { catalog, CRITICAL_LANE, laneDurableOf, lanesOfService, STREAMS } from '@openpaw/contracts';
import { PROVIDER_CREDENTIALS, type ProviderPurpose, providerPurposesOf } from '@openpaw/providers/credentials';
import { App, Chart } from 'cdk8s';
import * as kplus from 'cdk8s-plus-34';
import type { INamespace } from 'kubernetes-models/v1/Namespace';
import type { Construct } from 'constructs';
import { cpuAutoscaler, type LaneLag, scaledObject, type ScalingProps } from './autoscaling.js';
import { collector, COLLECTOR_NAME, COLLECTOR_OTLP_HTTP } from './collector.js';
import { gatewayIngress } from './ingress.js';
import { selectorLabels } from './labels.js';
import { mathsReindexJob, mathsReindexJobName } from './maths-reindex-job.js';
import { HELM_PRE_HOOK, migrationsJob } from './migrations-job.js';
import { DEAD_LETTER_REDRIVER, NATS_PROVISIONER, NATS_REDRIVER, natsCredentialsSecretOf } from './nats-credentials.js';
import { natsCredentialsMount, natsRedriverCredentialsMount, natsTlsMount } from './nats-credentials-mount.js';
import { retentionCronJob } from './retention-cronjob.js';
import { type LaneAlertSpec, prometheusRules, serviceMonitor, type StepLatencySpec } from './monitoring.js';
import { collectorPolicy, defaultDeny, natsPolicy, workloadPolicy } from './network.js';
import { BLOB_VOLUME_PATH, blobEnv, type PlatformSettings, type ResourceQuantities } from './settings.js';
import {
  lagThresholdInMessages,
  laneItemThreshold,
  METRICS_PORT,
  SEPARATE_LANES,
  serviceSpec,
  SERVICES,
  SHUTDOWN_GRACE_SECONDS,
  type LaneSpec,
  type ServiceSpec,
  SOLVE_MATHS_WORKERS,
} from './topology.js';
import { typedObject } from './typed-object.js';
import { Workload } from './workload.js';

/** The commands stream (FROZEN name in the contracts). */
const COMMANDS_STREAM = STREAMS.commands.name;

/** One Deployment of the platform: a service's main Deployment, or a lane split off into its own. */
export interface WorkloadPlan {
  readonly name: string;
  readonly service: ServiceSpec;
  readonly lane?: LaneSpec;
  /** `OPENPAW_LANES` for this Deployment (absent: every lane of the service). */
  readonly lanes?: string;
  readonly scaling: ScalingProps;
}

/** Lanes a service's main Deployment keeps when some of its lanes run separately: every other lane the catalog declares. */
function mainLanesOf(service: string): string {
  const separate = new Set(SEPARATE_LANES.filter((lane) => lane.service === service).map((lane) => lane.lane));
  return [...lanesOfService(catalog, service).keys()].filter((lane) => !separate.has(lane)).join(',');
}

/** The most items one command of the lane carries, from the catalog: a batched command's `maxItems`, else 1. */
export function itemsPerCommandOf(service: string, lane: string): number {
  const commands = lanesOfService(catalog, service).get(lane) ?? [];
  return Math.max(1, ...commands.map((command) => command.batch?.maxItems ?? 1));
}

/** A lane's KEDA threshold in pending messages: its item threshold (a separate lane's own, else `laneItemThreshold`) over its largest batch. */
export function laneLagThreshold(service: string, lane: string): number {
  const separate = SEPARATE_LANES.find((l) => l.service === service && l.lane === lane);
  return lagThresholdInMessages(separate?.itemThreshold ?? laneItemThreshold(lane), itemsPerCommandOf(service, lane));
}

/**
 * The lanes whose lag scales a service's main Deployment, from the catalog: every lane it keeps that has
 * commands (the critical lane and the heavy ones: research legs, paper-search skills, priority videos),
 * each with its own threshold (`laneLagThreshold`, in messages, from items), so a backlog of slow work scales it too.
 */
function mainLaneLags(service: string, settings: PlatformSettings): LaneLag[] {
  const separate = new Set(SEPARATE_LANES.filter((lane) => lane.service === service).map((lane) => lane.lane));
  return [...lanesOfService(catalog, service)]
    .filter(([lane, commands]) => !separate.has(lane) && commands.length > 0)
    .map(([lane]) => ({ monitoringEndpoint: settings.natsMonitoringEndpoint, stream: COMMANDS_STREAM, consumer: laneDurableOf(service, lane), threshold: laneLagThreshold(service, lane) }));
}

/** Every Deployment, from the typed table in `topology.ts`. */
/** The setting each service sizes its PostgreSQL pool by (`OPENPAW_GATEWAY_POOL_SIZE`, ...). */
/**
 * The database Secret's key a service's `OPENPAW_DATABASE_URL` comes from: a URL for its own role
 * `openpaw_<service>` (rows of its schema only; the migrations Job creates and grants it). The key
 * `url` is the migrator's, owner of the tables, and only the Jobs read it.
 */
export function databaseUrlKeyOf(service: string): string {
  return `${service}-url`;
}

/** The database Secret's key of the migrator (the migrations Job and the retention CronJob). */
export const MIGRATOR_DATABASE_URL_KEY = 'url';

export function poolSizeEnvOf(service: string): string {
  return `OPENPAW_${service.toUpperCase().replace(/-/g, '_')}_POOL_SIZE`;
}

/** A workload's ServiceAccount: `openpaw-<service>` (a lane runs as its service's). */
export function serviceAccountNameOf(service: string): string {
  return `openpaw-${service}`;
}

/**
 * Least privilege, as the policy enforces it: the ServiceAccounts whose pods may read each reserved
 * Secret. The key that opens users' sealed keys goes to research alone; each purpose's provider keys
 * to the services whose config validates that purpose (`SERVICE_PROVIDER_PURPOSES`); the gateway's
 * auth Secret to the gateway.
 */
export function secretHolders(settings: PlatformSettings): Readonly<Record<string, readonly string[]>> {
  return {
    // Each NATS user's credentials to its own pods: a service's (its lanes run as it), the stream owner's to the migrations Job.
    ...Object.fromEntries(SERVICES.map((service) => [natsCredentialsSecretOf(settings.secrets.natsCredentialsPrefix, service.name), [serviceAccountNameOf(service.name)]])),
    [natsCredentialsSecretOf(settings.secrets.natsCredentialsPrefix, NATS_PROVISIONER)]: [serviceAccountNameOf('migrate')],
    [natsCredentialsSecretOf(settings.secrets.natsCredentialsPrefix, NATS_REDRIVER)]: [serviceAccountNameOf(DEAD_LETTER_REDRIVER)],
    [settings.secrets.keyOpening]: [serviceAccountNameOf('research')],
    ...Object.fromEntries(
      providerPurposesWithKeys().map((purpose) => [
        providerSecretOf(settings, purpose),
        SERVICES.filter((service) => providerPurposesOf(service.name).includes(purpose)).map((service) => serviceAccountNameOf(service.name)),
      ]),
    ),
    [settings.secrets.gatewayAuth]: [serviceAccountNameOf('gateway')],
  };
}

/** The purposes whose providers take keys (blobs reach GCS by workload identity: no Secret). */
export function providerPurposesWithKeys(): ProviderPurpose[] {
  return (Object.keys(PROVIDER_CREDENTIALS) as ProviderPurpose[]).filter((purpose) => PROVIDER_CREDENTIALS[purpose].length > 0);
}

/** The Secret holding one purpose's provider keys: `<providersPrefix>-<purpose>`. */
export function providerSecretOf(settings: PlatformSettings, purpose: ProviderPurpose): string {
  return `${settings.secrets.providersPrefix}-${purpose}`;
}

/**
 * A service's provider keys, each named on its own (optional: a provider not configured has no key)
 * from its purpose's Secret, so the manifests show every key a workload can read. A key two of its
 * purposes read (`OPENAI_API_KEY` for the LLM and the embedder) comes from the purpose listed first.
 */
export function providerKeySources(service: string): Map<string, ProviderPurpose> {
  const sources = new Map<string, ProviderPurpose>();
  for (const purpose of providerPurposesOf(service)) for (const key of PROVIDER_CREDENTIALS[purpose]) if (!sources.has(key)) sources.set(key, purpose);
  return sources;
}

function resourcesOf(settings: PlatformSettings, deployment: string): ResourceQuantities {
  const resources = settings.resources[deployment];
  if (resources === undefined) throw new Error(`no resources for Deployment ${deployment} (PlatformSettings.resources.${deployment})`);
  return resources;
}

/** The gateway and the coordinator consume events and their own small command set: CPU scales them, not lag. */
function scalesOnLag(service: string): boolean {
  return service !== 'gateway' && service !== 'coordinator';
}

/** Every lane a lag trigger scales, with its threshold and the replicas its Deployment may reach (the consumer-lag alerts). */
export function laneAlertSpecs(): LaneAlertSpec[] {
  return SERVICES.filter((service) => scalesOnLag(service.name)).flatMap((service) =>
    [...lanesOfService(catalog, service.name)]
      .filter(([, commands]) => commands.length > 0)
      .map(([lane]) => {
        const separate = SEPARATE_LANES.find((l) => l.service === service.name && l.lane === lane);
        return { service: service.name, lane, lagThreshold: laneLagThreshold(service.name, lane), maxReplicas: separate?.replicas.max ?? service.replicas.max };
      }),
  );
}

/** Each service's critical-lane commands (a user waits on them) with its drain budget (the step-latency alerts). */
export function stepLatencySpecs(): StepLatencySpec[] {
  return SERVICES.map((service) => ({
    service: service.name,
    subjects: (lanesOfService(catalog, service.name).get(CRITICAL_LANE) ?? []).map((command) => command.subject),
    drainSeconds: service.drainSeconds,
  }));
}

export function workloadPlans(settings: PlatformSettings): readonly WorkloadPlan[] {
  const plans: WorkloadPlan[] = [];
  for (const service of SERVICES) {
    const split = SEPARATE_LANES.some((lane) => lane.service === service.name);
    const consumesCommands = scalesOnLag(service.name);
    plans.push({
      name: service.name,
      service,
      ...(split ? { lanes: mainLanesOf(service.name) } : {}),
      scaling: {
        name: service.name,
        min: service.replicas.min,
        max: service.replicas.max,
        ...(consumesCommands
          ? { lags: mainLaneLags(service.name, settings) }
          : { lags: [] }),
      },
    });
  }
  for (const lane of SEPARATE_LANES) {
    const name = `${lane.service}-${lane.lane}`;
    plans.push({
      name,
      service: serviceSpec(lane.service),
      lane,
      lanes: lane.lane,
      scaling: {
        name,
        min: lane.replicas.min,
        max: lane.replicas.max,
        lags: [{ monitoringEndpoint: settings.natsMonitoringEndpoint, stream: COMMANDS_STREAM, consumer: laneDurableOf(lane.service, lane.lane), threshold: laneLagThreshold(lane.service, lane.lane) }],
      },
    });
  }
  return plans;
}

class PlatformChart extends Chart {
  constructor(scope: Construct, settings: PlatformSettings) {
    super(scope, 'openpaw', { namespace: settings.namespace, disableResourceNameHashes: true });
    typedObject<INamespace>(this, 'namespace', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: settings.namespace,
        labels: {
          'pod-security.kubernetes.io/enforce': 'restricted',
          'pod-security.kubernetes.io/enforce-version': 'latest',
          'pod-security.kubernetes.io/warn': 'restricted',
        },
      },
    });
    const config = new kplus.ConfigMap(this, 'config', {
      metadata: { name: 'openpaw-config' },
      data: {
        HOST: '0.0.0.0',
        LOG_LEVEL: 'info',
        OPENPAW_NATS_URL: settings.natsUrl,
        // The streams' one owner is the migrations Job (tools/provision.js, reconcile); services never touch them.
        OPENPAW_STREAMS_PROVISION: 'off',
        OPENPAW_STREAM_REPLICAS: String(settings.streamReplicas),
        // Services check the schema version at start; only the migrations Job migrates.
        OPENPAW_MIGRATIONS: 'verify',
        SHUTDOWN_GRACE_MS: String(SHUTDOWN_GRACE_SECONDS * 1000),
        METRICS_PORT: String(METRICS_PORT),
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://${COLLECTOR_NAME}:${COLLECTOR_OTLP_HTTP}`,
        // Explicit blob settings: the read-only root has no room for the local default.
        ...blobEnv(settings.blobs),
      },
    });
    const blobMounts: { path: string; volume: kplus.Volume }[] =
      settings.blobs.kind === 'volume'
        ? [{ path: BLOB_VOLUME_PATH, volume: kplus.Volume.fromPersistentVolumeClaim(this, 'blob-volume', kplus.PersistentVolumeClaim.fromClaimName(this, 'blob-claim', settings.blobs.claimName)) }]
        : [];
    const serviceAccounts = new Map<string, kplus.ServiceAccount>();
    const serviceAccountOf = (service: string): kplus.ServiceAccount => {
      let account = serviceAccounts.get(service);
      if (account === undefined) {
        const identity = settings.workloadIdentity.accounts[service];
        if (identity === undefined) throw new Error(`no workload identity for ServiceAccount ${serviceAccountNameOf(service)} (PlatformSettings.workloadIdentity.accounts.${service})`);
        // The migrations Job is a Helm pre-install hook: its ServiceAccount must exist before it, so it is a hook too (created first).
        const hook = service === 'migrate' ? { ...HELM_PRE_HOOK, 'helm.sh/hook-weight': '-10' } : {};
        const annotations = { [settings.workloadIdentity.annotation]: identity, ...hook };
        account = new kplus.ServiceAccount(this, `${service}-sa`, { metadata: { name: serviceAccountNameOf(service), annotations }, automountToken: false });
        serviceAccounts.set(service, account);
      }
      return account;
    };
    const databaseSecret = kplus.Secret.fromSecretName(this, 'database-secret', settings.secrets.database);
    const databaseUrl = kplus.EnvValue.fromSecretValue({ secret: databaseSecret, key: MIGRATOR_DATABASE_URL_KEY });
    const gatewayAuth = kplus.Secret.fromSecretName(this, 'gateway-auth-secret', settings.secrets.gatewayAuth);
    const providerSecrets = new Map(providerPurposesWithKeys().map((purpose) => [purpose, kplus.Secret.fromSecretName(this, `providers-${purpose}-secret`, providerSecretOf(settings, purpose))]));
    const keyOpening = kplus.Secret.fromSecretName(this, 'key-opening-secret', settings.secrets.keyOpening);

    const collectorLabels = collector(this, settings.traceBackendEndpoint);
    defaultDeny(this);
    collectorPolicy(this, settings, collectorLabels);
    serviceMonitor(this, settings.monitoringRelease);
    prometheusRules(this, settings.monitoringRelease, stepLatencySpecs(), laneAlertSpecs(), { llmCostUsdPerHour: settings.llmCostAlertUsdPerHour });
    gatewayIngress(this, settings.ingress);
    const natsCredentialsOf = (user: string, id: string): ReturnType<typeof natsCredentialsMount> =>
      natsCredentialsMount(this, `${id}-nats-credentials`, natsCredentialsSecretOf(settings.secrets.natsCredentialsPrefix, user));
    migrationsJob(this, {
      image: settings.image,
      natsUrl: settings.natsUrl,
      databaseUrl,
      streamReplicas: settings.streamReplicas,
      natsCredentials: natsCredentialsOf(NATS_PROVISIONER, 'migrate'),
      natsTls: natsTlsMount(this, 'migrate-nats-tls', settings.secrets.natsTls),
      serviceAccount: serviceAccountOf('migrate'),
    });
    retentionCronJob(this, { image: settings.image, config, databaseUrl, blobMounts, serviceAccount: serviceAccountOf('retention') });
    // Default-deny covers the Jobs too: the migrations Job reaches NATS (streams) and PostgreSQL; retention
    // PostgreSQL and the blob store over HTTPS (the step-log archive; blob settings from the ConfigMap).
    for (const [name, externalEgress] of [['openpaw-migrate', false], ['openpaw-retention', true]] as const) {
      workloadPolicy(this, settings, { name, labels: selectorLabels(name), port: 0, public: false, database: true, externalEgress }, collectorLabels);
    }

    for (const plan of workloadPlans(settings)) {
      const { service, lane } = plan;
      // Its service's NATS user (a lane runs as its service), from a Secret volume the kubelet updates on rotation.
      const natsCredentials = natsCredentialsOf(service.name, plan.name);
      // NATS requires TLS with a client certificate from the platform's CA (nats-tls.ts).
      const natsTls = natsTlsMount(this, `${plan.name}-nats-tls`, settings.secrets.natsTls);
      // The redriver's beside it in the gateway's pods: the ops API's redrive alone connects as it.
      const redriverCredentials =
        service.name === DEAD_LETTER_REDRIVER ? [natsRedriverCredentialsMount(this, `${plan.name}-nats-redriver-credentials`, natsCredentialsSecretOf(settings.secrets.natsCredentialsPrefix, NATS_REDRIVER))] : [];
      const env: Record<string, kplus.EnvValue> = {
        OTEL_SERVICE_NAME: kplus.EnvValue.fromValue(plan.name),
        ...natsCredentials.env,
        ...natsTls.env,
        ...Object.fromEntries(redriverCredentials.flatMap((mount) => Object.entries(mount.env))),
      };
      if (service.database) {
        env['OPENPAW_DATABASE_URL'] = kplus.EnvValue.fromSecretValue({ secret: databaseSecret, key: databaseUrlKeyOf(service.name) });
        env[poolSizeEnvOf(service.name)] = kplus.EnvValue.fromValue(String(service.poolSize));
      }
      if (plan.lanes !== undefined) env['OPENPAW_LANES'] = kplus.EnvValue.fromValue(plan.lanes);
      // The replica's memory limit is sized for this many engine workers (topology.ts).
      if (service.name === 'solve') env['OPENPAW_SOLVE_MATHS_WORKERS'] = kplus.EnvValue.fromValue(String(SOLVE_MATHS_WORKERS));
      const envFrom: kplus.EnvFrom[] = [];
      if (service.name === 'gateway') envFrom.push(kplus.Env.fromSecret(gatewayAuth));
      for (const [key, purpose] of providerKeySources(service.name)) {
        const secret = providerSecrets.get(purpose);
        if (secret !== undefined) env[key] = kplus.EnvValue.fromSecretValue({ secret, key }, { optional: true });
      }
      // Only research opens users' sealed keys; the gateway seals them with the public key (in its auth Secret).
      if (service.name === 'research') envFrom.push(kplus.Env.fromSecret(keyOpening));
      const workload = new Workload(this, plan.name, {
        name: plan.name,
        service: service.name,
        component: lane === undefined ? 'service' : 'lane',
        image: settings.image,
        port: service.port,
        replicas: plan.scaling.min,
        resources: resourcesOf(settings, plan.name),
        drainSeconds: lane?.drainSeconds ?? service.drainSeconds,
        config,
        env,
        envFrom,
        scratch: [{ name: 'tmp', path: '/tmp', sizeMiB: lane === undefined ? 256 : 4096 }],
        mounts: [...(service.blobs ? blobMounts : []), ...[natsCredentials, natsTls, ...redriverCredentials].map((mount) => ({ path: mount.path, volume: mount.volume, readOnly: true }))],
        serviceAccount: serviceAccountOf(service.name),
      });
      workloadPolicy(
        this,
        settings,
        { name: plan.name, labels: workload.labels, port: service.port, public: service.public, database: service.database, externalEgress: service.externalEgress },
        collectorLabels,
      );
    }
  }
}

class ScalingChart extends Chart {
  constructor(scope: Construct, id: string, settings: PlatformSettings, kind: 'keda' | 'hpa') {
    super(scope, id, { namespace: settings.namespace, disableResourceNameHashes: true });
    for (const plan of workloadPlans(settings)) {
      if (kind === 'keda') scaledObject(this, plan.scaling);
      else cpuAutoscaler(this, plan.scaling);
    }
  }
}

/**
 * An on-demand Job in a file of its own (the maths re-key sweep, or its preview), with the
 * NetworkPolicy that lets it reach PostgreSQL under the platform's default-deny.
 */
class MathsReindexChart extends Chart {
  constructor(scope: Construct, settings: PlatformSettings, dryRun: boolean) {
    const name = mathsReindexJobName(dryRun);
    super(scope, name, { namespace: settings.namespace, disableResourceNameHashes: true });
    const databaseSecret = kplus.Secret.fromSecretName(this, 'database-secret', settings.secrets.database);
    // Retrieval's own role: the sweep touches retrieval's catalogue and nothing else. Its withdrawals go to the
    // retrieval service as retrieval's NATS user; the preview sends nothing.
    const messaging = dryRun
      ? undefined
      : {
          natsUrl: settings.natsUrl,
          credentials: natsCredentialsMount(this, `${name}-nats-credentials`, natsCredentialsSecretOf(settings.secrets.natsCredentialsPrefix, 'retrieval')),
          tls: natsTlsMount(this, `${name}-nats-tls`, settings.secrets.natsTls),
          serviceAccount: kplus.ServiceAccount.fromServiceAccountName(this, `${name}-service-account`, serviceAccountNameOf('retrieval')),
        };
    mathsReindexJob(this, { image: settings.image, databaseUrl: kplus.EnvValue.fromSecretValue({ secret: databaseSecret, key: databaseUrlKeyOf('retrieval') }), dryRun, ...(messaging === undefined ? {} : { messaging }) });
    workloadPolicy(this, settings, { name, labels: selectorLabels(name), port: 0, public: false, database: true, externalEgress: false, messaging: !dryRun }, selectorLabels(COLLECTOR_NAME));
  }
}

class NatsPolicyChart extends Chart {
  constructor(scope: Construct, settings: PlatformSettings) {
    super(scope, 'nats-networkpolicy', { disableResourceNameHashes: true });
    natsPolicy(this, settings);
  }
}

/** The charts, by output file: the platform, KEDA scaling (or the HPA fallback: apply one of the two), NATS' NetworkPolicy. */
export interface PlatformCharts {
  readonly app: App;
  readonly platform: Chart;
  readonly keda: Chart;
  readonly hpa: Chart;
  readonly nats: Chart;
  /** On demand: the maths re-key sweep's preview, and the sweep. */
  readonly mathsReindexDryRun: Chart;
  readonly mathsReindex: Chart;
}

export function buildPlatform(settings: PlatformSettings): PlatformCharts {
  const app = new App();
  return {
    app,
    platform: new PlatformChart(app, settings),
    keda: new ScalingChart(app, 'openpaw-keda', settings, 'keda'),
    hpa: new ScalingChart(app, 'openpaw-hpa', settings, 'hpa'),
    nats: new NatsPolicyChart(app, settings),
    mathsReindexDryRun: new MathsReindexChart(app, settings, true),
    mathsReindex: new MathsReindexChart(app, settings, false),
  };
}
