import type { K8sObject } from '../render.js';

/*
 * What the kubelet would run for each container of the synthesized manifests, read from the objects
 * themselves (never from deploy/src's TypeScript): the argv, the environment resolved from env,
 * envFrom, ConfigMaps and Secrets, the Service links, the mounts and the security context. The boot
 * test (tools/boot-from-manifests.boot.spec.ts) starts exactly this, through a printed substitution map.
 */

/** A Kubernetes workload, or a service of docker-compose.yml. */
export type WorkloadKind = 'Deployment' | 'Job' | 'CronJob' | 'ComposeService';

export interface PodMount {
  /** Where the container sees it. */
  readonly path: string;
  readonly volume: string;
  readonly source: 'emptyDir' | 'persistentVolumeClaim' | 'configMap' | 'secret';
  /** A configMap or secret volume's files (every key, or the volume's `items`). */
  readonly files?: Readonly<Record<string, string>>;
  /** The claim, for a persistentVolumeClaim (one directory per claim, shared by the pods that mount it). */
  readonly claimName?: string;
  readonly readOnly: boolean;
}

export interface PodContainer {
  readonly kind: WorkloadKind;
  readonly workload: string;
  readonly container: string;
  /** An init container: runs to completion before the pod's containers. */
  readonly init: boolean;
  readonly image: string;
  /** `command` then `args`, with `$(VAR)` expanded as the kubelet does. */
  readonly argv: readonly string[];
  /** In the kubelet's order: envFrom sources in turn, then `env` (later wins). Service links are added by `withServiceLinks`. */
  readonly env: Readonly<Record<string, string>>;
  readonly readOnlyRootFilesystem: boolean;
  readonly runAsUser: number | undefined;
  readonly runAsGroup: number | undefined;
  readonly mounts: readonly PodMount[];
  /** containerPort by port name. */
  readonly ports: Readonly<Record<string, number>>;
  readonly readiness: { readonly path: string; readonly port: number } | undefined;
  /**
   * How long the platform gives the container to start before it restarts it: the startup probe's
   * `periodSeconds` × `failureThreshold` (compose restarts no unhealthy container: none there).
   */
  readonly startupBudgetMs: number | undefined;
}

/** Secrets by name, key → value: what ops create beforehand (the manifests only name them). */
export type SecretValues = Readonly<Record<string, Readonly<Record<string, string>>>>;

// The manifests are plain JSON; these are the fields read here (the Kubernetes API's names).
interface EnvVar {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: {
    readonly configMapKeyRef?: { readonly name: string; readonly key: string; readonly optional?: boolean };
    readonly secretKeyRef?: { readonly name: string; readonly key: string; readonly optional?: boolean };
  };
}
interface EnvFromSource {
  readonly prefix?: string;
  readonly configMapRef?: { readonly name: string; readonly optional?: boolean };
  readonly secretRef?: { readonly name: string; readonly optional?: boolean };
}
interface ContainerSpec {
  readonly name: string;
  readonly image: string;
  readonly command?: readonly string[];
  readonly args?: readonly string[];
  readonly env?: readonly EnvVar[];
  readonly envFrom?: readonly EnvFromSource[];
  readonly volumeMounts?: readonly { readonly name: string; readonly mountPath: string; readonly readOnly?: boolean }[];
  readonly ports?: readonly { readonly name?: string; readonly containerPort: number }[];
  readonly readinessProbe?: { readonly httpGet?: { readonly path: string; readonly port: number | string } };
  readonly startupProbe?: { readonly periodSeconds?: number; readonly failureThreshold?: number };
  readonly securityContext?: { readonly readOnlyRootFilesystem?: boolean; readonly runAsUser?: number; readonly runAsGroup?: number };
}
interface PodSpec {
  readonly containers: readonly ContainerSpec[];
  readonly initContainers?: readonly ContainerSpec[];
  readonly volumes?: readonly {
    readonly name: string;
    readonly emptyDir?: object;
    readonly persistentVolumeClaim?: { readonly claimName: string };
    readonly configMap?: { readonly name: string };
    readonly secret?: { readonly secretName: string; readonly items?: readonly { readonly key: string; readonly path: string }[] };
  }[];
  readonly securityContext?: { readonly runAsUser?: number; readonly runAsGroup?: number };
  readonly enableServiceLinks?: boolean;
}

function podSpecOf(object: K8sObject): PodSpec {
  const spec = object['spec'] as { template?: { spec: PodSpec }; jobTemplate?: { spec: { template: { spec: PodSpec } } } };
  const pod = object.kind === 'CronJob' ? spec.jobTemplate?.spec.template.spec : spec.template?.spec;
  if (pod === undefined) throw new Error(`${object.kind} ${object.metadata.name} has no pod template`);
  return pod;
}

/** `$(VAR)` → the variable's value when defined (else left as written); `$$(` is a literal `$(`. */
export function expandKubeletReferences(text: string, env: Readonly<Record<string, string>>): string {
  return text.replace(/\$\$\(|\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (match, name: string | undefined) => {
    if (name === undefined) return '$(';
    return env[name] ?? match;
  });
}

function resolveEnv(object: K8sObject, container: ContainerSpec, configMaps: ReadonlyMap<string, Readonly<Record<string, string>>>, secrets: SecretValues): Record<string, string> {
  const where = `${object.kind} ${object.metadata.name}, container ${container.name}`;
  const source = (kind: 'ConfigMap' | 'Secret', name: string, optional: boolean | undefined): Readonly<Record<string, string>> | undefined => {
    const found = kind === 'ConfigMap' ? configMaps.get(name) : secrets[name];
    if (found === undefined && optional !== true) throw new Error(`${where}: ${kind} ${name} does not exist (the kubelet would not start it: CreateContainerConfigError)`);
    return found;
  };
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    const values = from.configMapRef !== undefined ? source('ConfigMap', from.configMapRef.name, from.configMapRef.optional) : from.secretRef !== undefined ? source('Secret', from.secretRef.name, from.secretRef.optional) : undefined;
    for (const [key, value] of Object.entries(values ?? {})) env[`${from.prefix ?? ''}${key}`] = value;
  }
  for (const variable of container.env ?? []) {
    const ref = variable.valueFrom?.configMapKeyRef ?? variable.valueFrom?.secretKeyRef;
    if (variable.valueFrom === undefined) env[variable.name] = expandKubeletReferences(variable.value ?? '', env);
    else if (ref !== undefined) {
      const kind = variable.valueFrom.configMapKeyRef !== undefined ? 'ConfigMap' : 'Secret';
      const value = source(kind, ref.name, ref.optional)?.[ref.key];
      if (value === undefined && ref.optional !== true) throw new Error(`${where}: ${kind} ${ref.name} has no key ${ref.key} (needed by ${variable.name})`);
      if (value !== undefined) env[variable.name] = value;
    } else throw new Error(`${where}: ${variable.name} uses a valueFrom the boot test does not resolve (${Object.keys(variable.valueFrom).join(', ')})`);
  }
  return env;
}

function containerOf(object: K8sObject, pod: PodSpec, container: ContainerSpec, init: boolean, configMaps: ReadonlyMap<string, Readonly<Record<string, string>>>, secrets: SecretValues): PodContainer {
  const env = resolveEnv(object, container, configMaps, secrets);
  const mounts = (container.volumeMounts ?? []).map((mount): PodMount => {
    const volume = pod.volumes?.find((v) => v.name === mount.name);
    if (volume?.emptyDir !== undefined) return { path: mount.mountPath, volume: mount.name, source: 'emptyDir', readOnly: mount.readOnly === true };
    if (volume?.persistentVolumeClaim !== undefined) {
      return { path: mount.mountPath, volume: mount.name, source: 'persistentVolumeClaim', claimName: volume.persistentVolumeClaim.claimName, readOnly: mount.readOnly === true };
    }
    if (volume?.configMap !== undefined) {
      const files = configMaps.get(volume.configMap.name);
      if (files === undefined) throw new Error(`${object.kind} ${object.metadata.name}: ConfigMap ${volume.configMap.name} of volume ${mount.name} does not exist`);
      // The kubelet mounts a configMap volume read-only whatever the mount says.
      return { path: mount.mountPath, volume: mount.name, source: 'configMap', files, readOnly: true };
    }
    if (volume?.secret !== undefined) {
      const values = secrets[volume.secret.secretName];
      if (values === undefined) throw new Error(`${object.kind} ${object.metadata.name}: Secret ${volume.secret.secretName} of volume ${mount.name} does not exist`);
      const items = volume.secret.items ?? Object.keys(values).map((key) => ({ key, path: key }));
      const files: Record<string, string> = {};
      for (const item of items) {
        const value = values[item.key];
        if (value === undefined) throw new Error(`${object.kind} ${object.metadata.name}: Secret ${volume.secret.secretName} has no key ${item.key} (volume ${mount.name})`);
        files[item.path] = value;
      }
      // Like a configMap volume, the kubelet mounts a secret volume read-only.
      return { path: mount.mountPath, volume: mount.name, source: 'secret', files, readOnly: true };
    }
    throw new Error(`${object.kind} ${object.metadata.name}: volume ${mount.name} is of a kind the boot test does not mount`);
  });
  const ports = Object.fromEntries((container.ports ?? []).map((p) => [p.name ?? String(p.containerPort), p.containerPort]));
  const probe = container.readinessProbe?.httpGet;
  const probePort = typeof probe?.port === 'string' ? ports[probe.port] : probe?.port;
  return {
    kind: object.kind as WorkloadKind,
    workload: object.metadata.name,
    container: container.name,
    init,
    image: container.image,
    argv: [...(container.command ?? []), ...(container.args ?? [])].map((part) => expandKubeletReferences(part, env)),
    env,
    readOnlyRootFilesystem: container.securityContext?.readOnlyRootFilesystem === true,
    runAsUser: container.securityContext?.runAsUser ?? pod.securityContext?.runAsUser,
    runAsGroup: container.securityContext?.runAsGroup ?? pod.securityContext?.runAsGroup,
    mounts,
    ports,
    readiness: probe === undefined || probePort === undefined ? undefined : { path: probe.path, port: probePort },
    // The Kubernetes defaults: every 10 s, 3 failures.
    startupBudgetMs: container.startupProbe === undefined ? undefined : (container.startupProbe.periodSeconds ?? 10) * (container.startupProbe.failureThreshold ?? 3) * 1000,
  };
}

/**
 * Every container of every Deployment, Job and CronJob, init containers first within a pod, with
 * its environment resolved from the synthesized ConfigMaps and the given Secrets. A reference to a
 * missing ConfigMap, Secret or key fails here, as the kubelet would refuse to start the container.
 */
export function podContainers(objects: readonly K8sObject[], secrets: SecretValues): PodContainer[] {
  const configMaps = new Map(
    objects.filter((o) => o.kind === 'ConfigMap').map((o) => [o.metadata.name, (o['data'] ?? {}) as Readonly<Record<string, string>>] as const),
  );
  const containers: PodContainer[] = [];
  for (const object of objects) {
    if (object.kind !== 'Deployment' && object.kind !== 'Job' && object.kind !== 'CronJob') continue;
    const pod = podSpecOf(object);
    for (const c of pod.initContainers ?? []) containers.push(containerOf(object, pod, c, true, configMaps, secrets));
    for (const c of pod.containers) containers.push(containerOf(object, pod, c, false, configMaps, secrets));
  }
  return containers;
}

/** A Service of the manifests: its name, and its ports by name → the port it listens on. */
export interface ServiceLink {
  readonly name: string;
  readonly ports: readonly { readonly name: string; readonly port: number }[];
}

export function servicesOf(objects: readonly K8sObject[]): ServiceLink[] {
  return objects
    .filter((o) => o.kind === 'Service')
    .map((o) => ({ name: o.metadata.name, ports: ((o['spec'] as { ports?: { name?: string; port: number }[] }).ports ?? []).map((p) => ({ name: p.name ?? '', port: p.port })) }));
}

/**
 * The variables the kubelet adds for every Service of the namespace (`enableServiceLinks`, on by
 * default): `<NAME>_SERVICE_HOST`, `<NAME>_SERVICE_PORT[_<PORT NAME>]`, `<NAME>_PORT` and the
 * `<NAME>_PORT_<port>_TCP*` family. A setting whose name collides with one (e.g. a service reading
 * `GATEWAY_PORT`) breaks only in a cluster; the boot test gives them too. `address` is where the
 * Service's port is reached here.
 */
export function serviceLinkEnv(services: readonly ServiceLink[], address: (service: string, port: number) => { host: string; port: number }): Record<string, string> {
  const env: Record<string, string> = {};
  for (const service of services) {
    const prefix = service.name.toUpperCase().replace(/-/g, '_');
    service.ports.forEach((p, index) => {
      const { host, port } = address(service.name, p.port);
      if (index === 0) {
        env[`${prefix}_SERVICE_HOST`] = host;
        env[`${prefix}_SERVICE_PORT`] = String(port);
        env[`${prefix}_PORT`] = `tcp://${host}:${port}`;
      }
      if (p.name !== '') env[`${prefix}_SERVICE_PORT_${p.name.toUpperCase().replace(/-/g, '_')}`] = String(port);
      // Named after the Service's own port (as in the cluster), valued with where it is reached.
      const tcp = `${prefix}_PORT_${p.port}_TCP`;
      env[tcp] = `tcp://${host}:${port}`;
      env[`${tcp}_PROTO`] = 'tcp';
      env[`${tcp}_PORT`] = String(port);
      env[`${tcp}_ADDR`] = host;
    });
  }
  return env;
}
