import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { catalog, ExecuteResearchLegs, laneDurableOf, lanesOfService, RESEARCH_LIMITS } from '@openpaw/contracts';
import { NATS_CREDENTIALS_KEY, NATS_PROVISIONER, natsCredentialsSecretOf, PLATFORM_ACCOUNT } from './nats-credentials.js';
import { NATS_ACCOUNTS_INCLUDE, NATS_ACCOUNTS_KEY, NATS_ACCOUNTS_SECRET, natsValues } from './nats-values.js';
import { PROVIDER_CREDENTIALS, providerPurposesOf } from '@openpaw/providers/credentials';
import { databaseUrlKeyOf, MIGRATOR_DATABASE_URL_KEY, providerSecretOf, secretHolders } from './platform.js';
import { NATS_PARTNER_NAMESPACE_LABEL } from './network.js';
import { connectionsAtMaxReplicas, policyViolations, type PolicyOptions } from './policy.js';
import { renderPlatform, type K8sObject } from './render.js';
import { schemaError } from './schema-validation.js';
import { BLOB_VOLUME_PATH, DEFAULT_SETTINGS, type PlatformSettings } from './settings.js';
import { lagThresholdInMessages, laneItemThreshold, RESEARCH_LEG_CAP_SECONDS, SEPARATE_LANES, SERVICES, SHUTDOWN_GRACE_SECONDS } from './topology.js';

const rendered = renderPlatform(DEFAULT_SETTINGS);
const all = [...rendered.platform, ...rendered.keda, ...rendered.hpa, ...rendered.nats];

const policy: PolicyOptions = {
  requiredGraceSeconds: (name) => {
    const lane = SEPARATE_LANES.find((l) => `${l.service}-${l.lane}` === name);
    const service = SERVICES.find((s) => s.name === name);
    const drain = lane?.drainSeconds ?? service?.drainSeconds ?? 0;
    return SHUTDOWN_GRACE_SECONDS + drain;
  },
  secretHolders: secretHolders(DEFAULT_SETTINGS),
  connectionBudget: DEFAULT_SETTINGS.postgresConnectionBudget,
  pipelinedConnectionsOf: (name) => SERVICES.find((s) => s.name === name)?.pipelinedConnections ?? 0,
  databaseRoles: { secret: DEFAULT_SETTINGS.secrets.database, urlKeyOf: databaseUrlKeyOf },
};

function byKind(kind: string, list: readonly K8sObject[] = rendered.platform): K8sObject[] {
  return list.filter((o) => o.kind === kind);
}

function serviceOf(name: string): (typeof SERVICES)[number] {
  const service = SERVICES.find((s) => s.name === name);
  if (service === undefined) throw new Error(`no service ${name}`);
  return service;
}

/** The service a Deployment runs (its container's name: `assets` for `assets-video`). */
function serviceOfDeployment(deployment: K8sObject): string {
  return (deployment['spec'] as { template: { spec: { containers: { name: string }[] } } }).template.spec.containers[0]!.name;
}

function clone(object: K8sObject): K8sObject {
  return structuredClone<K8sObject>(object);
}

describe('synthesized manifests', () => {
  it('validate against the Kubernetes, KEDA and Prometheus Operator schemas', () => {
    expect(all.length).toBeGreaterThan(50);
    expect(all.map(schemaError).filter((e) => e !== undefined)).toEqual([]);
  });

  it('the schema check rejects an invalid object', () => {
    const deployment = clone(byKind('Deployment')[0] as K8sObject);
    (deployment['spec'] as { strategy: unknown }).strategy = { type: 'Sometimes' };
    const pdb = clone(byKind('PodDisruptionBudget')[0] as K8sObject);
    (pdb['spec'] as { maxUnavailable: unknown }).maxUnavailable = { half: true };
    expect(schemaError(deployment)).toContain('Deployment');
    expect(schemaError(pdb)).toContain('PodDisruptionBudget');
    expect(schemaError({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } })).toContain('no schema known');
  });

  it('pass the policy with KEDA and with the HPA fallback', () => {
    expect(policyViolations(rendered.platform, rendered.keda, policy)).toEqual([]);
    expect(policyViolations(rendered.platform, rendered.hpa, policy)).toEqual([]);
  });

  it('the key that opens users\' sealed keys reaches research alone; the policy refuses it anywhere else', () => {
    const readers = byKind('Deployment').filter((d) => JSON.stringify(d).includes(DEFAULT_SETTINGS.secrets.keyOpening));
    // The research service's Deployments: its main one and its legs' lane (both run as openpaw-research).
    expect(readers.map((d) => d.metadata.name)).toEqual(['research', 'research-research']);
    const leaked = rendered.platform.map(clone);
    const gateway = leaked.find((o) => o.kind === 'Deployment' && o.metadata.name === 'gateway') as K8sObject;
    const container = (gateway['spec'] as { template: { spec: { containers: { env: unknown[] }[] } } }).template.spec.containers[0]!;
    container.env.push({ name: 'OPENPAW_KEY_SEALING_PRIVATE_KEY', valueFrom: { secretKeyRef: { name: DEFAULT_SETTINGS.secrets.keyOpening, key: 'private' } } });
    expect(policyViolations(leaked, rendered.keda, policy)).toEqual([`Deployment gateway: reads Secret ${DEFAULT_SETTINGS.secrets.keyOpening}, reserved to openpaw-research`]);
  });

  it('provider keys and the gateway\'s auth reach only their services; the policy refuses them anywhere else', () => {
    const leaked = rendered.platform.map(clone);
    const containerOf = (name: string) => (leaked.find((o) => o.kind === 'Deployment' && o.metadata.name === name)!['spec'] as { template: { spec: { containers: { env: unknown[]; envFrom: unknown[] }[] } } }).template.spec.containers[0]!;
    const llm = providerSecretOf(DEFAULT_SETTINGS, 'llm');
    const visual = providerSecretOf(DEFAULT_SETTINGS, 'visual');
    containerOf('coordinator').envFrom.push({ secretRef: { name: llm } });
    containerOf('solve').envFrom.push({ secretRef: { name: DEFAULT_SETTINGS.secrets.gatewayAuth } });
    // A service that calls providers, given a purpose it does not use (research searches papers, not images).
    containerOf('research').env.push({ name: 'BRAVE_SEARCH_API_KEY', valueFrom: { secretKeyRef: { name: visual, key: 'BRAVE_SEARCH_API_KEY', optional: true } } });
    expect(policyViolations(leaked, rendered.keda, policy)).toEqual([
      `Deployment coordinator: reads Secret ${llm}, reserved to openpaw-solve, openpaw-artifacts, openpaw-research, openpaw-visual-search`,
      `Deployment solve: reads Secret ${DEFAULT_SETTINGS.secrets.gatewayAuth}, reserved to openpaw-gateway`,
      `Deployment research: reads Secret ${visual}, reserved to openpaw-visual-search`,
    ]);
  });

  it('each workload connects to NATS as its own user: its credentials Secret mounted whole (rotatable), read-only, named by OPENPAW_NATS_CREDS_FILE', () => {
    type Pod = {
      serviceAccountName?: string;
      volumes?: { name: string; secret?: { secretName: string; items?: { key: string; path: string }[] } }[];
      containers: { name: string; env?: { name: string; value?: string }[]; volumeMounts?: { name: string; mountPath: string; readOnly?: boolean; subPath?: string }[] }[];
      initContainers?: Pod['containers'];
    };
    const podSpecOf = (o: K8sObject): Pod => (o['spec'] as { template: { spec: Pod } }).template.spec;
    /** The NATS user whose Secret each NATS-connecting container's creds file comes from. */
    const usersOf = (o: K8sObject): Record<string, string> => {
      const pod = podSpecOf(o);
      const out: Record<string, string> = {};
      for (const container of [...(pod.initContainers ?? []), ...pod.containers]) {
        const env = Object.fromEntries((container.env ?? []).map((v) => [v.name, v.value]));
        if (env['OPENPAW_NATS_URL'] === undefined && o.kind !== 'Deployment') continue;
        const file = env['OPENPAW_NATS_CREDS_FILE'];
        const mount = (container.volumeMounts ?? []).find((m) => file !== undefined && file.startsWith(`${m.mountPath}/`));
        const secret = pod.volumes?.find((v) => v.name === mount?.name)?.secret;
        const item = secret?.items?.find((i) => `${mount?.mountPath}/${i.path}` === file);
        expect({ container: container.name, readOnly: mount?.readOnly, subPath: mount?.subPath, key: item?.key }).toEqual({ container: container.name, readOnly: true, subPath: undefined, key: NATS_CREDENTIALS_KEY });
        out[container.name] = secret?.secretName ?? '';
      }
      return out;
    };
    const prefix = DEFAULT_SETTINGS.secrets.natsCredentialsPrefix;
    for (const deployment of byKind('Deployment').filter((d) => d.metadata.name !== 'otel-collector')) {
      const service = serviceOfDeployment(deployment);
      expect({ deployment: deployment.metadata.name, users: usersOf(deployment) }).toEqual({ deployment: deployment.metadata.name, users: { [service]: natsCredentialsSecretOf(prefix, service) } });
    }
    const job = byKind('Job')[0] as K8sObject;
    expect(usersOf(job)).toEqual({ streams: natsCredentialsSecretOf(prefix, NATS_PROVISIONER) });
    expect(podSpecOf(job).serviceAccountName).toBe('openpaw-migrate');
    // Another service's credentials, or the stream owner's, anywhere else: refused.
    const leaked = rendered.platform.map(clone);
    const solve = podSpecOf(leaked.find((o) => o.kind === 'Deployment' && o.metadata.name === 'solve') as K8sObject);
    solve.volumes?.push({ name: 'borrowed', secret: { secretName: natsCredentialsSecretOf(prefix, 'research') } });
    const gateway = podSpecOf(leaked.find((o) => o.kind === 'Deployment' && o.metadata.name === 'gateway') as K8sObject);
    gateway.volumes?.push({ name: 'owner', secret: { secretName: natsCredentialsSecretOf(prefix, NATS_PROVISIONER) } });
    expect(policyViolations(leaked, rendered.keda, policy)).toEqual([
      `Deployment gateway: reads Secret ${natsCredentialsSecretOf(prefix, NATS_PROVISIONER)}, reserved to openpaw-migrate`,
      `Deployment solve: reads Secret ${natsCredentialsSecretOf(prefix, 'research')}, reserved to openpaw-research`,
    ]);
  });

  it("only the gateway mounts the redriver's credentials, and optionally: a gateway starts before its operator issues them", () => {
    type Volume = { name: string; secret?: { secretName: string; optional?: boolean } };
    type PodTemplate = { spec: { volumes?: Volume[] } };
    const volumesOf = (o: K8sObject): Volume[] => {
      const spec = o['spec'] as { template?: PodTemplate; jobTemplate?: { spec: { template: PodTemplate } } };
      return (spec.template ?? spec.jobTemplate?.spec.template)?.spec.volumes ?? [];
    };
    const redriverSecret = natsCredentialsSecretOf(DEFAULT_SETTINGS.secrets.natsCredentialsPrefix, 'redriver');
    const mounting = [...byKind('Deployment'), ...byKind('Job'), ...byKind('CronJob')].flatMap((o) =>
      volumesOf(o).filter((v) => v.secret?.secretName === redriverSecret).map((v) => ({ workload: o.metadata.name, optional: v.secret?.optional })),
    );
    expect(mounting).toEqual([{ workload: 'gateway', optional: true }]);
    // Every workload's own credentials stay required: without them it could not connect at all.
    const ownOptional = byKind('Deployment').flatMap((o) => volumesOf(o).filter((v) => v.secret?.secretName !== redriverSecret && v.secret?.optional === true).map((v) => `${o.metadata.name}: ${v.name}`));
    expect(ownOptional).toEqual([]);
  });

  it('the NATS chart values include the accounts block (users, permissions) from its Secret, where nats-server resolves the include', () => {
    const values = natsValues() as { config: { merge: Record<string, string> }; container: { patch: { value: { mountPath: string } }[] }; podTemplate: { patch: { value: { secret: { secretName: string } } }[] } };
    expect(values.config.merge['00$include']).toBe(NATS_ACCOUNTS_INCLUDE);
    // The chart's config is /etc/nats-config/nats.conf; an include is joined to that directory.
    expect(join('/etc/nats-config', NATS_ACCOUNTS_INCLUDE)).toBe(`${values.container.patch[0]?.value.mountPath}/${NATS_ACCOUNTS_KEY}`);
    expect(values.podTemplate.patch[0]?.value.secret.secretName).toBe(NATS_ACCOUNTS_SECRET);
  });

  it('each service reads the database as its own role; only the Jobs read the migrator\'s URL, and the Job grants the roles', () => {
    const urlRefs = (list: readonly K8sObject[]) =>
      list.flatMap((o) => {
        const text = JSON.stringify(o);
        const keys = [...text.matchAll(/"name":"OPENPAW_DATABASE_URL","valueFrom":\{"secretKeyRef":\{"key":"([^"]+)"/g)].map((m) => m[1]);
        return keys.map((key) => `${o.kind} ${o.metadata.name}: ${key}`);
      });
    const deployments = byKind('Deployment').filter((d) => JSON.stringify(d).includes('OPENPAW_DATABASE_URL'));
    expect(urlRefs(deployments)).toEqual(deployments.map((d) => `Deployment ${d.metadata.name}: ${databaseUrlKeyOf(serviceOfDeployment(d))}`));
    expect(new Set(urlRefs([...byKind('Job'), ...byKind('CronJob')]).map((ref) => ref.split(': ')[1]))).toEqual(new Set([MIGRATOR_DATABASE_URL_KEY]));
    expect(JSON.stringify(byKind('Job'))).toContain('{"name":"OPENPAW_DATABASE_ROLES","value":"per-service"}');
    const widened = rendered.platform.map(clone);
    const solve = widened.find((o) => o.kind === 'Deployment' && o.metadata.name === 'solve') as K8sObject;
    const env = (solve['spec'] as { template: { spec: { containers: { env: { name: string; valueFrom?: { secretKeyRef: { key: string } } }[] }[] } } }).template.spec.containers[0]!.env;
    env.find((v) => v.name === 'OPENPAW_DATABASE_URL')!.valueFrom!.secretKeyRef.key = MIGRATOR_DATABASE_URL_KEY;
    expect(policyViolations(widened, rendered.keda, policy)).toEqual([
      `Deployment solve container solve: OPENPAW_DATABASE_URL must come from Secret ${DEFAULT_SETTINGS.secrets.database} key solve-url (its own role), not ${DEFAULT_SETTINGS.secrets.database}/url`,
    ]);
  });

  it('hold no more PostgreSQL connections at maximum replicas than the budget, with KEDA and with the HPA', () => {
    const keda = connectionsAtMaxReplicas(rendered.platform, rendered.keda, policy.pipelinedConnectionsOf);
    expect(keda.unsized).toEqual([]);
    // Every Deployment with a database (its pool and its pipelined pools), at its maximum, plus the two Jobs.
    const expected = SERVICES.filter((s) => s.database).reduce((sum, s) => sum + (s.poolSize + s.pipelinedConnections) * s.replicas.max, 0) +
      SEPARATE_LANES.reduce((sum, lane) => sum + serviceOf(lane.service).poolSize * lane.replicas.max, 0) + 2 * 2;
    expect(keda.total).toBe(expected);
    expect(connectionsAtMaxReplicas(rendered.platform, rendered.hpa, policy.pipelinedConnectionsOf).total).toBe(expected);
    expect(expected).toBeLessThanOrEqual(DEFAULT_SETTINGS.postgresConnectionBudget);
    expect(policyViolations(rendered.platform, rendered.keda, { ...policy, connectionBudget: expected - 1 })).toEqual([
      `PostgreSQL connections at maximum replicas ${expected} > budget ${expected - 1}`,
    ]);
    const unsized = rendered.platform.map(clone);
    const gateway = unsized.find((o) => o.kind === 'Deployment' && o.metadata.name === 'gateway') as K8sObject;
    const container = (gateway['spec'] as { template: { spec: { containers: { env: { name: string }[] }[] } } }).template.spec.containers[0]!;
    container.env = container.env.filter((v) => v.name !== 'OPENPAW_GATEWAY_POOL_SIZE');
    expect(policyViolations(unsized, rendered.keda, policy)).toEqual(['Deployment gateway: a database URL and no OPENPAW_<SERVICE>_POOL_SIZE (its connections cannot be budgeted)']);
  });

  it('the policy also checks the pods of Jobs and CronJobs', () => {
    const cron = rendered.platform.map(clone).filter((o) => o.kind === 'CronJob');
    expect(cron.map((o) => o.metadata.name)).toEqual(['openpaw-retention']);
    const spec = (cron[0]?.['spec'] as { jobTemplate: { spec: { template: { spec: { containers: Record<string, unknown>[] } } } } }).jobTemplate.spec.template.spec;
    (spec.containers[0]?.['securityContext'] as Record<string, unknown>)['runAsNonRoot'] = false;
    expect(policyViolations([...cron, ...byKind('NetworkPolicy')], [], policy)).toEqual(['CronJob openpaw-retention container retention: may run as root']);
    expect(policyViolations(cron, [], policy)).toContain('CronJob openpaw-retention: no NetworkPolicy of its own');
  });

  it('the policy catches a container without probes, limits or a read-only root, and a Deployment without a PDB', () => {
    const broken = rendered.platform.map(clone).filter((o) => !(o.kind === 'PodDisruptionBudget' && o.metadata.name === 'solve'));
    const solve = broken.find((o) => o.kind === 'Deployment' && o.metadata.name === 'solve') as K8sObject;
    const container = (solve['spec'] as { template: { spec: { containers: Record<string, unknown>[] } } }).template.spec.containers[0] as Record<string, unknown>;
    delete container['readinessProbe'];
    container['resources'] = { requests: { cpu: '100m' } };
    (container['securityContext'] as Record<string, unknown>)['readOnlyRootFilesystem'] = false;
    (solve['spec'] as { template: { spec: Record<string, unknown> } }).template.spec['terminationGracePeriodSeconds'] = 30;
    expect(policyViolations(broken, rendered.keda, policy)).toEqual([
      'Deployment solve container solve: no liveness/readiness probe',
      'Deployment solve container solve: no cpu/memory limits',
      'Deployment solve container solve: writable root filesystem',
      'Deployment solve: no PodDisruptionBudget',
      `Deployment solve: terminationGracePeriodSeconds 30 < ${SHUTDOWN_GRACE_SECONDS + 120} needed to drain`,
    ]);
  });

  it('one Deployment per service and per separate lane (assets-video), each with KEDA on its own consumer', () => {
    const names = byKind('Deployment').map((d) => d.metadata.name);
    expect(names).toEqual(expect.arrayContaining([...SERVICES.map((s) => s.name), 'assets-video', 'otel-collector']));
    expect(names).toHaveLength(SERVICES.length + SEPARATE_LANES.length + 1);
    const triggers = Object.fromEntries(
      byKind('ScaledObject', rendered.keda).map((so) => {
        const spec = so['spec'] as { triggers: { type: string; metadata: Record<string, string> }[] };
        return [so.metadata.name, spec.triggers.filter((t) => t.type === 'nats-jetstream').map((t) => t.metadata)];
      }),
    );
    expect(triggers['assets-video']).toEqual([expect.objectContaining({ stream: 'OPENPAW_COMMANDS', consumer: 'svc-assets-video', lagThreshold: '2' })]);
    // The main Deployment scales on every lane it keeps: priority videos (a user waits) at 1 per replica.
    expect(triggers['assets']).toEqual([
      expect.objectContaining({ consumer: 'svc-assets', lagThreshold: '20', natsServerMonitoringEndpoint: DEFAULT_SETTINGS.natsMonitoringEndpoint }),
      expect.objectContaining({ consumer: 'svc-assets-priorityvideo', lagThreshold: '1' }),
    ]);
    expect(triggers['gateway']).toEqual([]);
    // Every visual-search command is on its `visual` lane: its main Deployment scales on that lane's lag.
    expect(triggers['visual-search']).toEqual([expect.objectContaining({ consumer: 'svc-visual-search-visual' })]);
    const env = (name: string): Record<string, unknown> => {
      const d = byKind('Deployment').find((o) => o.metadata.name === name) as K8sObject;
      const c = (d['spec'] as { template: { spec: { containers: { env: { name: string; value?: string }[] }[] } } }).template.spec.containers[0];
      return Object.fromEntries((c?.env ?? []).map((e) => [e.name, e.value]));
    };
    expect(env('assets-video')['OPENPAW_LANES']).toBe('video');
    expect(env('assets')['OPENPAW_LANES']).toBe('critical,priorityvideo');
    expect(env('solve')).not.toHaveProperty('OPENPAW_LANES');
  });

  it('research legs run on a Deployment of their own that drains for the whole leg cap: a rollout never cuts a leg to call it (and bill it) again', () => {
    const lane = byKind('Deployment').find((d) => d.metadata.name === 'research-research') as K8sObject;
    const pod = (lane['spec'] as { template: { spec: { terminationGracePeriodSeconds: number; containers: { env: { name: string; value?: string }[] }[] } } }).template.spec;
    expect(pod.containers[0]?.env.find((e) => e.name === 'OPENPAW_LANES')?.value).toBe('research');
    expect(pod.terminationGracePeriodSeconds * 1000).toBeGreaterThanOrEqual(RESEARCH_LIMITS.legCapMs);
    expect(RESEARCH_LEG_CAP_SECONDS * 1000).toBeGreaterThanOrEqual(Math.max(RESEARCH_LIMITS.legCapMs, RESEARCH_LIMITS.synthesisCapMs));
    const main = byKind('Deployment').find((d) => d.metadata.name === 'research') as K8sObject;
    const mainEnv = (main['spec'] as { template: { spec: { containers: { env: { name: string; value?: string }[] }[] } } }).template.spec.containers[0]?.env;
    expect(mainEnv?.find((e) => e.name === 'OPENPAW_LANES')?.value).toBe('critical,papersearch');
  });

  it('KEDA counts items, not messages: each lag trigger fires by the time its lane\'s item threshold waits per replica, even when every message is a full batch', () => {
    const triggers = byKind('ScaledObject', rendered.keda).flatMap((so) =>
      (so['spec'] as { triggers: { type: string; metadata: Record<string, string> }[] }).triggers.filter((t) => t.type === 'nats-jetstream').map((t) => t.metadata),
    );
    const checked: string[] = [];
    for (const service of SERVICES) {
      for (const [lane, commands] of lanesOfService(catalog, service.name)) {
        const trigger = triggers.find((t) => t['consumer'] === laneDurableOf(service.name, lane));
        if (trigger === undefined || commands.length === 0) continue;
        const largestBatch = Math.max(1, ...commands.map((c) => c.batch?.maxItems ?? 1));
        const items = SEPARATE_LANES.find((l) => l.service === service.name && l.lane === lane)?.itemThreshold ?? laneItemThreshold(lane);
        // Scale-out needs ceil(pending messages / threshold) > replicas: with full batches, threshold × batch items wait per replica at most.
        const waitingItemsAtScaleOut = Number(trigger['lagThreshold']) * largestBatch;
        expect({ lane: trigger['consumer'], withinItemThreshold: waitingItemsAtScaleOut <= Math.max(items, largestBatch) }).toEqual({ lane: trigger['consumer'], withinItemThreshold: true });
        if (largestBatch > 1) checked.push(`${trigger['consumer']}: ${trigger['lagThreshold']} message(s) of up to ${largestBatch} items`);
      }
    }
    // Research legs come as one batch per round (ExecuteResearchLegs, up to one leg per provider): one message is up to 4 legs.
    expect(checked).toEqual([`svc-research-research: 1 message(s) of up to ${ExecuteResearchLegs.batch.maxItems} items`]);
    expect(lagThresholdInMessages(20, 1)).toBe(20);
    expect(lagThresholdInMessages(3, 4)).toBe(1);
    // KEDA reads the lag in the platform's NATS account (the one the accounts block gives the streams).
    expect(new Set(triggers.map((t) => t['account']))).toEqual(new Set([PLATFORM_ACCOUNT]));
  });

  it('every lane of the catalog scales: its own Deployment, or a lag trigger on its service\'s (research legs, paper-search skills included)', () => {
    const consumers = new Set(
      byKind('ScaledObject', rendered.keda).flatMap((so) =>
        (so['spec'] as { triggers: { type: string; metadata: { consumer?: string } }[] }).triggers.filter((t) => t.type === 'nats-jetstream').map((t) => t.metadata.consumer),
      ),
    );
    // The coordinator's few commands (cancel, human inputs) ride beside the events it consumes: CPU scales it.
    const lanes = SERVICES.filter((s) => s.name !== 'coordinator').flatMap((s) => [...lanesOfService(catalog, s.name)].filter(([, commands]) => commands.length > 0).map(([lane]) => laneDurableOf(s.name, lane)));
    expect(lanes).toEqual(expect.arrayContaining(['svc-research-research', 'svc-research-papersearch', 'svc-assets-priorityvideo']));
    expect(lanes.filter((durable) => !consumers.has(durable))).toEqual([]);
  });

  it('only the gateway is reachable from the ingress controller; the NATS monitoring port only from KEDA and Prometheus', () => {
    const fromIngress = byKind('NetworkPolicy').filter((np) => JSON.stringify(np['spec']).includes(DEFAULT_SETTINGS.ingressNamespace));
    expect(fromIngress.map((np) => np.metadata.name)).toEqual(['gateway']);
    const nats = rendered.nats[0] as K8sObject;
    const rules = (nats['spec'] as { ingress: { from: unknown[]; ports: { port: number }[] }[] }).ingress;
    const monitoring = rules.filter((r) => r.ports.some((p) => p.port === 8222));
    expect(monitoring).toHaveLength(1);
    expect(JSON.stringify(monitoring[0]?.from)).toContain(DEFAULT_SETTINGS.kedaNamespace);
    expect(JSON.stringify(monitoring[0]?.from)).not.toContain(`"${DEFAULT_SETTINGS.namespace}"`);
  });

  it("partner teams' namespaces, once labelled, reach NATS's client port only (routes and monitoring stay closed to them)", () => {
    const nats = rendered.nats[0] as K8sObject;
    const rules = (nats['spec'] as { ingress: { from: { namespaceSelector?: { matchLabels?: Record<string, string> } }[]; ports: { port: number }[] }[] }).ingress;
    const partnerLabel = { [NATS_PARTNER_NAMESPACE_LABEL.key]: NATS_PARTNER_NAMESPACE_LABEL.value };
    const admitsPartners = (rule: (typeof rules)[number]): boolean => rule.from.some((peer) => JSON.stringify(peer.namespaceSelector?.matchLabels) === JSON.stringify(partnerLabel));
    expect(rules.filter(admitsPartners).map((rule) => rule.ports.map((p) => p.port))).toEqual([[4222]]);
    // The label is how contracts/README.md's steps and the runbook open it.
    for (const doc of ['contracts/README.md', 'docs/ops/runbook.md']) expect(readFileSync(join(import.meta.dirname, '../..', doc), 'utf8')).toContain(`${NATS_PARTNER_NAMESPACE_LABEL.key}=${NATS_PARTNER_NAMESPACE_LABEL.value}`);
  });

  it('services never migrate or touch the streams; the migrations Job does both (R3), before Helm rolls the Deployments', () => {
    const config = byKind('ConfigMap').find((c) => c.metadata.name === 'openpaw-config') as K8sObject;
    expect(config['data']).toMatchObject({ OPENPAW_MIGRATIONS: 'verify', OPENPAW_STREAMS_PROVISION: 'off', SHUTDOWN_GRACE_MS: String(SHUTDOWN_GRACE_SECONDS * 1000) });
    const job = byKind('Job')[0] as K8sObject;
    expect(job.metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    const spec = (job['spec'] as { template: { spec: { initContainers: { command: string[]; env: { name: string; value?: string }[] }[]; containers: { command: string[] }[] } } }).template.spec;
    expect(spec.initContainers[0]?.command).toEqual(['node', 'dist/tools/provision.js']);
    expect(spec.initContainers[0]?.env).toEqual(
      expect.arrayContaining([
        { name: 'OPENPAW_STREAMS_PROVISION', value: 'reconcile' },
        { name: 'OPENPAW_STREAM_REPLICAS', value: '3' },
      ]),
    );
    expect(spec.containers[0]?.command).toEqual(['node', 'dist/tools/migrate.js']);
  });

  describe('the maths reading sweep (on demand, issue 24)', () => {
    interface JobSpec {
      backoffLimit: number;
      activeDeadlineSeconds: number;
      ttlSecondsAfterFinished: number;
      template: { spec: { restartPolicy: string; serviceAccountName?: string; containers: { name: string; image: string; command: string[]; env: unknown[]; resources: { limits: Record<string, string> } }[] } };
    }
    const sweeps = [rendered.mathsReindexDryRun, rendered.mathsReindex];
    const jobOf = (list: readonly K8sObject[]): K8sObject => list.find((o) => o.kind === 'Job') as K8sObject;

    it('each file holds one valid Job and its NetworkPolicy, passing the policy beside the platform within the connection budget', () => {
      for (const list of sweeps) {
        expect(list.map((o) => `${o.kind} ${o.metadata.name}`)).toEqual([`Job ${jobOf(list).metadata.name}`, `NetworkPolicy ${jobOf(list).metadata.name}`]);
        expect(list.map(schemaError).filter((e) => e !== undefined)).toEqual([]);
      }
      expect(policyViolations([...rendered.platform, ...rendered.mathsReindexDryRun, ...rendered.mathsReindex], rendered.keda, policy)).toEqual([]);
      // Never applied with the platform: it must wait until every ingestion replica runs the current signature.
      expect(JSON.stringify(rendered.platform)).not.toContain('maths-reindex');
    });

    it("runs the tool from the image as retrieval's own role, retried and kept a day, limited", () => {
      const [dryRun, sweep] = sweeps.map((list) => jobOf(list));
      expect([dryRun?.metadata.name, sweep?.metadata.name]).toEqual(['openpaw-maths-reindex-dry-run', 'openpaw-maths-reindex']);
      for (const job of [dryRun, sweep] as K8sObject[]) {
        const spec = job['spec'] as JobSpec;
        expect({ backoffLimit: spec.backoffLimit, activeDeadlineSeconds: spec.activeDeadlineSeconds, ttlSecondsAfterFinished: spec.ttlSecondsAfterFinished, restartPolicy: spec.template.spec.restartPolicy }).toEqual({
          backoffLimit: 3,
          activeDeadlineSeconds: 7200,
          ttlSecondsAfterFinished: 86_400,
          restartPolicy: 'Never',
        });
        const container = spec.template.spec.containers[0]!;
        expect(container.image).toBe(DEFAULT_SETTINGS.image);
        expect(container.env[0]).toEqual({ name: 'OPENPAW_DATABASE_URL', valueFrom: { secretKeyRef: { name: DEFAULT_SETTINGS.secrets.database, key: databaseUrlKeyOf('retrieval') } } });
        expect(container.resources.limits).toEqual({ cpu: '1000m', memory: '384Mi' });
        expect(job.metadata.annotations?.['helm.sh/hook']).toBe('post-install,post-upgrade');
      }
      expect((dryRun?.['spec'] as JobSpec).template.spec.containers[0]?.command).toEqual(['node', 'dist/tools/maths-reindex.js', '--dry-run']);
      expect((sweep?.['spec'] as JobSpec).template.spec.containers[0]?.command).toEqual(['node', 'dist/tools/maths-reindex.js']);
      // The preview needs only the database; the sweep sends its withdrawals as retrieval's NATS user, over TLS.
      expect((dryRun?.['spec'] as JobSpec).template.spec.containers[0]?.env).toHaveLength(1);
      const sweepSpec = (sweep?.['spec'] as JobSpec).template.spec;
      expect(sweepSpec.serviceAccountName).toBe('openpaw-retrieval');
      expect(sweepSpec.containers[0]?.env.map((e) => (e as { name: string }).name)).toEqual([
        'OPENPAW_DATABASE_URL',
        'OPENPAW_NATS_URL',
        'OPENPAW_NATS_CREDS_FILE',
        'OPENPAW_NATS_TLS_CA_FILE',
        'OPENPAW_NATS_TLS_CERT_FILE',
        'OPENPAW_NATS_TLS_KEY_FILE',
      ]);
      expect(JSON.stringify(sweepSpec)).toContain(natsCredentialsSecretOf(DEFAULT_SETTINGS.secrets.natsCredentialsPrefix, 'retrieval'));
    });

    it('reaches PostgreSQL, the sweep NATS too, neither the internet', () => {
      const portsOf = (list: readonly K8sObject[]): number[] => {
        const np = list.find((o) => o.kind === 'NetworkPolicy') as K8sObject;
        return (np['spec'] as { egress: { ports: { port: number }[] }[] }).egress.flatMap((rule) => rule.ports.map((p) => p.port));
      };
      expect(portsOf(rendered.mathsReindex)).toEqual(expect.arrayContaining([5432, 4222]));
      expect(portsOf(rendered.mathsReindexDryRun)).toContain(5432);
      expect(portsOf(rendered.mathsReindexDryRun)).not.toContain(4222);
      for (const list of sweeps) expect(portsOf(list)).not.toContain(443);
    });
  });

  describe('blobs, egress and ServiceAccounts', () => {
    interface PodSpec {
      serviceAccountName?: string;
      automountServiceAccountToken?: boolean;
      volumes?: { name: string; persistentVolumeClaim?: { claimName: string } }[];
      containers: { volumeMounts?: { mountPath: string; name: string }[] }[];
    }
    const podOf = (o: K8sObject): PodSpec => (o['spec'] as { template: { spec: PodSpec } }).template.spec;
    const deployments = (list: readonly K8sObject[]): K8sObject[] => list.filter((o) => o.kind === 'Deployment' && o.metadata.name !== 'otel-collector');
    const serviceOf = (name: string) => SERVICES.find((s) => name === s.name || SEPARATE_LANES.some((l) => l.service === s.name && name === `${l.service}-${l.lane}`));

    it('the blob bucket is set explicitly; with a volume, only the workloads that keep blobs mount it at OPENPAW_BLOB_DIR', () => {
      const config = byKind('ConfigMap').find((c) => c.metadata.name === 'openpaw-config') as K8sObject;
      expect(config['data']).toMatchObject({ OPENPAW_GCS_BUCKET: 'openpaw-blobs', OPENPAW_GCS_PROJECT_ID: 'openpaw' });
      const volumeSettings: PlatformSettings = { ...DEFAULT_SETTINGS, blobs: { kind: 'volume', claimName: 'openpaw-blobs', shareBaseUrl: 'https://paw.example.com/v1/shared' } };
      const onVolume = renderPlatform(volumeSettings).platform;
      const volumeConfig = onVolume.find((c) => c.kind === 'ConfigMap' && c.metadata.name === 'openpaw-config') as K8sObject;
      expect(volumeConfig['data']).toMatchObject({ OPENPAW_BLOB_DIR: BLOB_VOLUME_PATH, OPENPAW_BLOB_SHARE_BASE_URL: 'https://paw.example.com/v1/shared' });
      expect(volumeConfig['data']).not.toHaveProperty('OPENPAW_GCS_BUCKET');
      for (const deployment of deployments(onVolume)) {
        const pod = podOf(deployment);
        const claim = pod.volumes?.find((v) => v.persistentVolumeClaim?.claimName === 'openpaw-blobs');
        const mounted = pod.containers[0]?.volumeMounts?.some((m) => m.mountPath === BLOB_VOLUME_PATH && m.name === claim?.name) ?? false;
        expect({ name: deployment.metadata.name, mounted }).toEqual({ name: deployment.metadata.name, mounted: serviceOf(deployment.metadata.name)?.blobs });
      }
    });

    it('the blobs flag is set on exactly the services whose start checks the blob store (their main.ts), so none waits on a volume it never gets', () => {
      const checksBlobs = (service: string): boolean => readFileSync(join(import.meta.dirname, `../../apps/${service}/src/main.ts`), 'utf8').includes('assertBlobStoreUsable');
      expect(SERVICES.map((s) => ({ service: s.name, blobs: s.blobs }))).toEqual(SERVICES.map((s) => ({ service: s.name, blobs: checksBlobs(s.name) })));
    });

    it('HTTPS egress goes only to the workloads that call out, to the CIDRs in the settings', () => {
      const settings: PlatformSettings = { ...DEFAULT_SETTINGS, httpsEgress: [{ cidr: '203.0.113.0/24' }, { cidr: '198.51.100.0/24', except: ['198.51.100.7/32'] }] };
      const policies = renderPlatform(settings).platform.filter((o) => o.kind === 'NetworkPolicy');
      const https = (name: string): unknown => {
        const np = policies.find((p) => p.metadata.name === name) as K8sObject;
        return (np['spec'] as { egress: { to: unknown[]; ports: { port: number }[] }[] }).egress.find((rule) => rule.ports.some((p) => p.port === 443))?.to;
      };
      for (const service of SERVICES) {
        expect({ name: service.name, to: https(service.name) }).toEqual({
          name: service.name,
          to: service.externalEgress ? [{ ipBlock: { cidr: '203.0.113.0/24' } }, { ipBlock: { cidr: '198.51.100.0/24', except: ['198.51.100.7/32'] } }] : undefined,
        });
      }
      // The gateway fetches JWKS/OIDC and reaches GCS; the coordinator calls nothing outside.
      expect(https('gateway')).toBeDefined();
      expect(https('coordinator')).toBeUndefined();
      expect(https('openpaw-migrate')).toBeUndefined();
    });

    it('every workload runs as its service\'s ServiceAccount, annotated for workload identity, with no token mounted', () => {
      const accounts = byKind('ServiceAccount');
      const account = (name: string) => accounts.find((a) => a.metadata.name === name);
      for (const deployment of deployments(rendered.platform)) {
        const pod = podOf(deployment);
        const service = serviceOf(deployment.metadata.name)?.name;
        expect(pod.serviceAccountName).toBe(`openpaw-${service}`);
        expect(pod.automountServiceAccountToken).toBe(false);
        expect(account(`openpaw-${service}`)?.metadata.annotations).toEqual({ 'iam.gke.io/gcp-service-account': `openpaw-${service}@openpaw.iam.gserviceaccount.com` });
      }
      expect(accounts.every((a) => a['automountServiceAccountToken'] === false)).toBe(true);
    });

    it('provider keys come one Secret per purpose: each workload gets exactly the keys its service\'s config reads, each from its purpose\'s Secret', () => {
      type Container = { name: string; env?: { name: string; valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } } }[]; envFrom?: { secretRef?: { name: string } }[] };
      const prefix = `${DEFAULT_SETTINGS.secrets.providersPrefix}-`;
      const pods = rendered.platform.filter((o) => ['Deployment', 'Job', 'CronJob'].includes(o.kind));
      expect(pods.length).toBeGreaterThan(10);
      for (const object of pods) {
        const text = JSON.stringify(object['spec']);
        const spec = (object.kind === 'CronJob' ? (object['spec'] as { jobTemplate: { spec: unknown } }).jobTemplate.spec : object['spec']) as { template: { spec: { containers: Container[]; initContainers?: Container[] } } };
        const containers = [...spec.template.spec.containers, ...(spec.template.spec.initContainers ?? [])];
        // Never a whole provider Secret: the manifests name every key a workload can read.
        expect(containers.flatMap((c) => c.envFrom ?? []).filter((from) => from.secretRef?.name.startsWith(prefix) === true)).toEqual([]);
        const service = object.kind === 'Deployment' ? serviceOfDeployment(object) : undefined;
        const purposes = service === undefined ? [] : providerPurposesOf(service);
        const read = containers.flatMap((c) => (c.env ?? []).filter((v) => v.valueFrom?.secretKeyRef?.name.startsWith(prefix) === true).map((v) => ({ variable: v.name, ...v.valueFrom!.secretKeyRef! })));
        expect({ workload: object.metadata.name, keys: read.map((r) => r.variable).sort() }).toEqual({
          workload: object.metadata.name,
          keys: [...new Set(purposes.flatMap((purpose) => PROVIDER_CREDENTIALS[purpose]))].sort(),
        });
        for (const ref of read) {
          // From the Secret of a purpose the service uses and whose keys include it, under its own name, optional (a provider not set up has no key).
          expect(purposes.some((purpose) => ref.name === providerSecretOf(DEFAULT_SETTINGS, purpose) && PROVIDER_CREDENTIALS[purpose].includes(ref.key))).toBe(true);
          expect({ key: ref.key, optional: ref.optional }).toEqual({ key: ref.variable, optional: true });
        }
        if (purposes.length === 0) expect(text).not.toContain(prefix);
      }
      const keysOf = (deployment: string) => JSON.stringify(rendered.platform.find((o) => o.kind === 'Deployment' && o.metadata.name === deployment));
      // Research searches papers, not images; retrieval embeds and calls no chat model.
      expect(keysOf('research')).not.toContain('BRAVE_SEARCH_API_KEY');
      expect(keysOf('retrieval')).not.toContain('ANTHROPIC_API_KEY');
      expect(keysOf('gateway')).not.toContain(prefix);
    });
  });
});
