import type { K8sObject } from './render.js';

/*
 * The policy checks every synthesized manifest passes (as a Kyverno/OPA policy would in a cluster):
 * restricted Pod Security, probes and limits on every long-running container, a PDB, a
 * NetworkPolicy and an autoscaler for every Deployment, enough grace to drain, Secrets reserved
 * to the workloads that need them, and PostgreSQL connections within their budget.
 */

interface Container {
  readonly name: string;
  readonly livenessProbe?: unknown;
  readonly readinessProbe?: unknown;
  readonly resources?: { readonly limits?: { readonly cpu?: string; readonly memory?: string }; readonly requests?: Record<string, string> };
  readonly securityContext?: {
    readonly runAsNonRoot?: boolean;
    readonly readOnlyRootFilesystem?: boolean;
    readonly allowPrivilegeEscalation?: boolean;
    readonly capabilities?: { readonly drop?: readonly string[]; readonly add?: readonly string[] };
    readonly seccompProfile?: { readonly type?: string };
  };
}

interface SecretReferences {
  readonly envFrom?: readonly { readonly secretRef?: { readonly name?: string } }[];
  readonly env?: readonly { readonly name?: string; readonly valueFrom?: { readonly secretKeyRef?: { readonly name?: string; readonly key?: string } } }[];
}

interface PodSpec {
  readonly serviceAccountName?: string;
  readonly volumes?: readonly { readonly secret?: { readonly secretName?: string } }[];
  readonly containers: readonly Container[];
  readonly initContainers?: readonly Container[];
  readonly terminationGracePeriodSeconds?: number;
  readonly hostNetwork?: boolean;
  readonly securityContext?: { readonly runAsNonRoot?: boolean };
}

interface Selector {
  readonly matchLabels?: Record<string, string>;
}

function podSpec(object: K8sObject): PodSpec | undefined {
  const spec = object['spec'] as { template?: { spec?: PodSpec }; jobTemplate?: { spec?: { template?: { spec?: PodSpec } } } } | undefined;
  return spec?.template?.spec ?? spec?.jobTemplate?.spec?.template?.spec;
}

function podLabels(object: K8sObject): Record<string, string> {
  type Template = { metadata?: { labels?: Record<string, string> } };
  const spec = object['spec'] as { template?: Template; jobTemplate?: { spec?: { template?: Template } } };
  return (spec.template ?? spec.jobTemplate?.spec?.template)?.metadata?.labels ?? {};
}

function selects(selector: Selector | undefined, labels: Record<string, string>): boolean {
  const match = selector?.matchLabels;
  return match !== undefined && Object.keys(match).length > 0 && Object.entries(match).every(([k, v]) => labels[k] === v);
}

function containerViolations(where: string, container: Container, longRunning: boolean): string[] {
  const out: string[] = [];
  const at = `${where} container ${container.name}`;
  if (longRunning && (container.livenessProbe === undefined || container.readinessProbe === undefined)) out.push(`${at}: no liveness/readiness probe`);
  if (container.resources?.limits?.cpu === undefined || container.resources.limits.memory === undefined) out.push(`${at}: no cpu/memory limits`);
  if (container.resources?.requests === undefined) out.push(`${at}: no requests`);
  const sc = container.securityContext ?? {};
  if (sc.runAsNonRoot !== true) out.push(`${at}: may run as root`);
  if (sc.readOnlyRootFilesystem !== true) out.push(`${at}: writable root filesystem`);
  if (sc.allowPrivilegeEscalation !== false) out.push(`${at}: privilege escalation allowed`);
  if (!(sc.capabilities?.drop ?? []).includes('ALL') || (sc.capabilities?.add ?? []).length > 0) out.push(`${at}: capabilities not dropped`);
  if (sc.seccompProfile?.type !== 'RuntimeDefault') out.push(`${at}: no RuntimeDefault seccomp profile`);
  return out;
}

export interface PolicyOptions {
  /** Seconds a Deployment's pods need to stop cleanly, by Deployment name. */
  readonly requiredGraceSeconds: (deployment: string) => number;
  /** Least privilege: a Secret listed here may be referenced only by pods running as one of its ServiceAccounts. */
  readonly secretHolders?: Readonly<Record<string, readonly string[]>>;
  /** PostgreSQL connections the workloads may hold at their maximum replicas (see `connectionsAtMaxReplicas`). */
  readonly connectionBudget?: number;
  /** Connections a Deployment's replica holds beyond its pool (pipelined pools of its own), by Deployment name. */
  readonly pipelinedConnectionsOf?: (deployment: string) => number;
  /**
   * Per-service database roles: a Deployment's `OPENPAW_DATABASE_URL` must come from this Secret's key
   * `databaseUrlKey(<container>)`, never another key (the migrator's owns every table).
   */
  readonly databaseRoles?: { readonly secret: string; readonly urlKeyOf: (service: string) => string };
}

/** A Job's or CronJob's pod holds at most this many connections (`tools/migrate.ts` 1, `tools/retention.ts` 2). */
const JOB_CONNECTIONS = 2;
const POOL_SIZE_ENV = /^OPENPAW_[A-Z_]+_POOL_SIZE$/;

interface EnvVar {
  readonly name: string;
  readonly value?: string;
}

function envOf(spec: PodSpec): EnvVar[] {
  return spec.containers.flatMap((c) => ((c as Container & { env?: EnvVar[] }).env ?? []));
}

function maxReplicasOf(deployment: K8sObject, scaling: readonly K8sObject[]): number {
  for (const scaler of scaling) {
    const spec = scaler['spec'] as { scaleTargetRef?: { name?: string }; maxReplicaCount?: number; maxReplicas?: number } | undefined;
    if (spec?.scaleTargetRef?.name === deployment.metadata.name) return spec.maxReplicaCount ?? spec.maxReplicas ?? 1;
  }
  return (deployment['spec'] as { replicas?: number }).replicas ?? 1;
}

/**
 * PostgreSQL connections the manifests allow at once: each Deployment with a database URL, its pool
 * size (its `OPENPAW_<SERVICE>_POOL_SIZE`, which must be set) plus its pipelined connections
 * (`pipelinedConnectionsOf`) × its autoscaler's maximum, plus
 * `JOB_CONNECTIONS` per Job or CronJob. `unsized` lists the Deployments with a database URL and no pool size.
 */
export function connectionsAtMaxReplicas(
  objects: readonly K8sObject[],
  scaling: readonly K8sObject[],
  pipelinedConnectionsOf: (deployment: string) => number = () => 0,
): { readonly total: number; readonly unsized: readonly string[] } {
  let total = 0;
  const unsized: string[] = [];
  for (const object of objects) {
    const spec = podSpec(object);
    if (spec === undefined) continue;
    const env = envOf(spec);
    if (!env.some((v) => v.name === 'OPENPAW_DATABASE_URL')) continue;
    if (object.kind !== 'Deployment') {
      total += JOB_CONNECTIONS;
      continue;
    }
    const pool = Number(env.find((v) => POOL_SIZE_ENV.test(v.name))?.value);
    if (!Number.isInteger(pool) || pool < 1) {
      unsized.push(object.metadata.name);
      continue;
    }
    total += (pool + pipelinedConnectionsOf(object.metadata.name)) * maxReplicasOf(object, scaling);
  }
  return { total, unsized };
}

/** A container's database URL from any key but its service's own in the database Secret. */
function databaseRoleViolations(where: string, spec: PodSpec, roles: NonNullable<PolicyOptions['databaseRoles']>): string[] {
  const out: string[] = [];
  for (const container of spec.containers as (Container & SecretReferences)[]) {
    const url = container.env?.find((v) => v.name === 'OPENPAW_DATABASE_URL');
    if (url === undefined) continue;
    const ref = url.valueFrom?.secretKeyRef;
    const wanted = roles.urlKeyOf(container.name);
    if (ref?.name !== roles.secret || ref.key !== wanted) {
      out.push(`${where} container ${container.name}: OPENPAW_DATABASE_URL must come from Secret ${roles.secret} key ${wanted} (its own role), not ${ref === undefined ? 'a literal' : `${ref.name ?? '?'}/${ref.key ?? '?'}`}`);
    }
  }
  return out;
}

/** Every Secret a pod can read: envFrom, env secretKeyRef and secret volumes, of every container. */
function secretsOf(spec: PodSpec): Set<string> {
  const names = new Set<string>();
  for (const container of [...spec.containers, ...(spec.initContainers ?? [])] as (Container & SecretReferences)[]) {
    for (const from of container.envFrom ?? []) if (from.secretRef?.name !== undefined) names.add(from.secretRef.name);
    for (const variable of container.env ?? []) if (variable.valueFrom?.secretKeyRef?.name !== undefined) names.add(variable.valueFrom.secretKeyRef.name);
  }
  for (const volume of spec.volumes ?? []) if (volume.secret?.secretName !== undefined) names.add(volume.secret.secretName);
  return names;
}

/** Every policy violation in the objects (empty when all pass). `scaling` holds the autoscalers applied with them. */
export function policyViolations(objects: readonly K8sObject[], scaling: readonly K8sObject[], options: PolicyOptions): string[] {
  const out: string[] = [];
  const pdbs = objects.filter((o) => o.kind === 'PodDisruptionBudget');
  const policies = objects.filter((o) => o.kind === 'NetworkPolicy');
  for (const object of objects) {
    const spec = podSpec(object);
    if (spec === undefined) continue;
    const where = `${object.kind} ${object.metadata.name}`;
    const longRunning = object.kind === 'Deployment';
    if (spec.hostNetwork === true) out.push(`${where}: host network`);
    if (spec.securityContext?.runAsNonRoot !== true) out.push(`${where}: pod may run as root`);
    for (const c of spec.containers) out.push(...containerViolations(where, c, longRunning));
    for (const c of spec.initContainers ?? []) out.push(...containerViolations(where, c, false));
    for (const secret of secretsOf(spec)) {
      const holders = options.secretHolders?.[secret];
      if (holders !== undefined && !holders.includes(spec.serviceAccountName ?? 'default')) out.push(`${where}: reads Secret ${secret}, reserved to ${holders.join(', ')}`);
    }
    const labels = podLabels(object);
    if (!policies.some((np) => selects((np['spec'] as { podSelector?: Selector }).podSelector, labels))) out.push(`${where}: no NetworkPolicy of its own`);
    if (!longRunning) continue;
    if (options.databaseRoles !== undefined) out.push(...databaseRoleViolations(where, spec, options.databaseRoles));
    if (!pdbs.some((pdb) => selects((pdb['spec'] as { selector?: Selector }).selector, labels))) out.push(`${where}: no PodDisruptionBudget`);
    const component = labels['app.kubernetes.io/component'];
    const scaled = (component !== 'service' && component !== 'lane') || scaling.some((s) => (s['spec'] as { scaleTargetRef?: { name?: string } }).scaleTargetRef?.name === object.metadata.name);
    if (!scaled) out.push(`${where}: no autoscaler`);
    const grace = spec.terminationGracePeriodSeconds ?? 30;
    const needed = options.requiredGraceSeconds(object.metadata.name);
    if (grace < needed) out.push(`${where}: terminationGracePeriodSeconds ${grace} < ${needed} needed to drain`);
  }
  if (options.connectionBudget !== undefined) {
    const { total, unsized } = connectionsAtMaxReplicas(objects, scaling, options.pipelinedConnectionsOf);
    for (const name of unsized) out.push(`Deployment ${name}: a database URL and no OPENPAW_<SERVICE>_POOL_SIZE (its connections cannot be budgeted)`);
    if (total > options.connectionBudget) out.push(`PostgreSQL connections at maximum replicas ${total} > budget ${options.connectionBudget}`);
  }
  return out;
}
