import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { PodContainer, ServiceLink } from './pod-containers.js';
import { serviceLinkEnv } from './pod-containers.js';
import type { SandboxSpec } from './read-only-sandbox.js';
import type { ImageDefaults } from '@openpaw/testing';

export { type ImageDefaults, imageDefaultsOf } from '@openpaw/testing';

/**
 * The only differences between what the manifests say and what the boot test runs, printed before
 * anything starts: in-cluster hosts → 127.0.0.1 ports, each container's ports → free local ones (every
 * pod has its own network namespace; here they share one), the listen address → loopback, the image's
 * WORKDIR → the checkout, the image's `node` → this Node, variables added for what stands in for a
 * cloud endpoint, and the workloads of other images replaced by a local equivalent.
 */
export interface SubstitutionMap {
  /** `host:port` as the manifests write it → `127.0.0.1:port`. */
  readonly hosts: Readonly<Record<string, string>>;
  readonly listenAddress: { readonly from: string; readonly to: string };
  /** Workload → its containerPort → the local port. */
  readonly ports: ReadonlyMap<string, ReadonlyMap<number, number>>;
  readonly workdir: { readonly from: string; readonly to: string };
  readonly node: { readonly from: string; readonly to: string };
  /** Variables set for every container of the platform's image, with why. */
  readonly added: Readonly<Record<string, { readonly value: string; readonly why: string }>>;
  /** Workloads of another image → what runs in their place. */
  readonly replaced: Readonly<Record<string, string>>;
}

export function describeSubstitutions(map: SubstitutionMap): string {
  const lines = ['boot test substitution map (everything else is as the manifests say):'];
  for (const [from, to] of Object.entries(map.hosts)) lines.push(`  host      ${from} -> ${to}`);
  lines.push(`  listen    ${map.listenAddress.from} -> ${map.listenAddress.to}`);
  for (const [workload, ports] of map.ports) for (const [from, to] of ports) lines.push(`  port      ${workload}:${from} -> 127.0.0.1:${to}`);
  lines.push(`  workdir   ${map.workdir.from} -> ${map.workdir.to}`);
  lines.push(`  node      ${map.node.from} -> ${map.node.to}`);
  for (const [name, { value, why }] of Object.entries(map.added)) lines.push(`  added     ${name}=${value} (${why})`);
  for (const [workload, by] of Object.entries(map.replaced)) lines.push(`  replaced  ${workload} -> ${by}`);
  return lines.join('\n');
}

/** Matches an in-cluster host:port: `name:port` or `name.namespace.svc[.cluster.local]:port`. */
const CLUSTER_HOST = /\b[a-z0-9-]+(\.[a-z0-9-]+\.svc(\.cluster\.local)?)?:\d{2,5}\b/g;

function substituteValue(value: string, map: SubstitutionMap, ports: ReadonlyMap<number, number>, clusterHosts: ReadonlySet<string>, where: string): string {
  if (value === map.listenAddress.from) return map.listenAddress.to;
  if (/^\d+$/.test(value) && ports.has(Number(value))) return String(ports.get(Number(value)));
  let out = value;
  for (const [from, to] of Object.entries(map.hosts)) out = out.replaceAll(from, to);
  if (out === map.workdir.from || out.startsWith(`${map.workdir.from}/`)) out = map.workdir.to + out.slice(map.workdir.from.length);
  for (const match of out.match(CLUSTER_HOST) ?? []) {
    if (match.includes('.svc') || clusterHosts.has(match.split(':')[0] ?? '')) throw new Error(`${where}: in-cluster address ${match} has no entry in the substitution map`);
  }
  return out;
}

export interface LocalProcess {
  readonly container: PodContainer;
  readonly sandbox: SandboxSpec;
  /** The readiness probe's URL here. */
  readonly readyUrl: string | undefined;
}

/**
 * What runs for one container: the manifests' argv and environment (the image's ENV under the
 * container's, as a container runtime does, plus the Service links) through the substitution map,
 * in a sandbox with the pod's writable mounts and identity. `scratch` holds the host directories of
 * emptyDirs (one per pod and volume) and claims (one per claim); a mount point must exist here.
 */
export function localProcessOf(
  container: PodContainer,
  input: { map: SubstitutionMap; image: ImageDefaults; services: readonly ServiceLink[]; scratch: string; pathEnv: string; otherHosts?: readonly string[] },
): LocalProcess {
  const { map, image } = input;
  const where = `${container.kind} ${container.workload}, container ${container.container}`;
  const ports = map.ports.get(container.workload) ?? new Map<number, number>();
  const clusterHosts = new Set([...input.services.map((s) => s.name), ...(input.otherHosts ?? [])]);
  const links = serviceLinkEnv(input.services, (service, port) => ({ host: '127.0.0.1', port: map.ports.get(service)?.get(port) ?? port }));
  const env: Record<string, string> = { PATH: input.pathEnv, HOSTNAME: `${container.workload}-boot`, HOME: '/nonexistent' };
  for (const [name, value] of Object.entries({ ...image.env, ...links, ...container.env })) env[name] = substituteValue(value, map, ports, clusterHosts, `${where}, ${name}`);
  for (const [name, { value }] of Object.entries(map.added)) env[name] = value;
  const argv = container.argv.map((part) => substituteValue(part, map, ports, clusterHosts, `${where}, argv`));
  if (argv[0] === map.node.from) argv[0] = map.node.to;
  const mounts = container.mounts.map((mount) => {
    const hostDir =
      mount.source === 'persistentVolumeClaim' ? join(input.scratch, 'claims', mount.claimName ?? mount.volume) : join(input.scratch, 'pods', container.workload, mount.volume);
    // The container runtime creates a mount point the image lacks; here it is made on the host (before the root turns read-only).
    if (!existsSync(mount.path)) mkdirSync(mount.path, { recursive: true });
    mkdirSync(hostDir, { recursive: true });
    for (const [file, content] of Object.entries(mount.files ?? {})) writeFileSync(join(hostDir, file), content);
    // An emptyDir is created world-writable (0777) by the kubelet; the pod's uid writes into it.
    chmodSync(hostDir, 0o777);
    return { hostDir, path: mount.path, readOnly: mount.readOnly };
  });
  const uid = container.runAsUser;
  return {
    container,
    sandbox: { argv, env, cwd: map.workdir.to, readOnlyRoot: container.readOnlyRootFilesystem, mounts, uid, gid: container.runAsGroup },
    readyUrl: container.readiness === undefined ? undefined : `http://127.0.0.1:${ports.get(container.readiness.port) ?? container.readiness.port}${container.readiness.path}`,
  };
}

/** A free local port (`findFreePort`) for every port each container declares, by workload. */
export async function localPortsOf(containers: readonly PodContainer[], freePort: () => Promise<number>): Promise<Map<string, Map<number, number>>> {
  const ports = new Map<string, Map<number, number>>();
  for (const c of containers) {
    const local = ports.get(c.workload) ?? new Map<number, number>();
    for (const port of Object.values(c.ports)) if (!local.has(port)) local.set(port, await freePort());
    ports.set(c.workload, local);
  }
  return ports;
}

/** `PATH` of every process: the directory of the Node running the test first (the image's `node`), then the system's. */
export function bootPathEnv(nodeBinary: string): string {
  return `${dirname(nodeBinary)}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`;
}
