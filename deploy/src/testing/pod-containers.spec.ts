import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { K8sObject } from '../render.js';
import { serviceCommand } from '../topology.js';
import { composeContainers, interpolateCompose } from './compose-containers.js';
import { describeSubstitutions, imageDefaultsOf, localProcessOf, type SubstitutionMap } from './boot-plan.js';
import { expandKubeletReferences, podContainers, serviceLinkEnv, servicesOf } from './pod-containers.js';
import { sandboxScript } from './read-only-sandbox.js';

const configMap: K8sObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' }, data: { A: 'from-config', NATS: 'nats://nats.nats.svc.cluster.local:4222', HOST: '0.0.0.0' } };
const service: K8sObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'visual-search' }, spec: { ports: [{ name: 'http', port: 3107 }] } };
const deployment = (env: unknown[], envFrom: unknown[] = [{ configMapRef: { name: 'cfg' } }, { secretRef: { name: 'sec' } }]): K8sObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'visual-search' },
  spec: {
    template: {
      spec: {
        securityContext: { runAsUser: 1000, runAsGroup: 1000 },
        volumes: [{ name: 'tmp', emptyDir: {} }],
        containers: [
          {
            name: 'main',
            image: 'img',
            command: ['node', 'dist/main.js'],
            args: ['--name=$(A)', '$$(A)'],
            envFrom,
            env,
            ports: [{ name: 'http', containerPort: 3107 }],
            readinessProbe: { httpGet: { path: '/readyz', port: 'http' } },
            volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
            securityContext: { readOnlyRootFilesystem: true },
          },
        ],
      },
    },
  },
});

describe('the containers of synthesized manifests, as the kubelet resolves them', () => {
  it('resolves envFrom in order, then env over it, with Secret and ConfigMap keys and $(VAR) expansion', () => {
    const [container] = podContainers(
      [configMap, deployment([{ name: 'PORT', value: '3107' }, { name: 'B', value: '$(A)-b' }, { name: 'URL', valueFrom: { secretKeyRef: { name: 'sec', key: 'url' } } }])],
      { sec: { A: 'from-secret', url: 'postgres://db' } },
    );
    expect(container).toMatchObject({
      workload: 'visual-search',
      argv: ['node', 'dist/main.js', '--name=from-secret', '$(A)'],
      env: { A: 'from-secret', B: 'from-secret-b', URL: 'postgres://db', PORT: '3107' },
      readOnlyRootFilesystem: true,
      runAsUser: 1000,
      mounts: [{ path: '/tmp', source: 'emptyDir', readOnly: false }],
      readiness: { path: '/readyz', port: 3107 },
    });
    expect(expandKubeletReferences('$(MISSING)', {})).toBe('$(MISSING)');
  });

  it('refuses a missing Secret or key as the kubelet does, naming it', () => {
    expect(() => podContainers([configMap, deployment([])], {})).toThrow('Secret sec does not exist');
    expect(() => podContainers([configMap, deployment([{ name: 'U', valueFrom: { secretKeyRef: { name: 'sec', key: 'nope' } } }])], { sec: {} })).toThrow('Secret sec has no key nope (needed by U)');
  });

  it('adds the Service links the kubelet adds', () => {
    expect(serviceLinkEnv(servicesOf([service]), () => ({ host: '127.0.0.1', port: 15000 }))).toEqual({
      VISUAL_SEARCH_SERVICE_HOST: '127.0.0.1',
      VISUAL_SEARCH_SERVICE_PORT: '15000',
      VISUAL_SEARCH_SERVICE_PORT_HTTP: '15000',
      VISUAL_SEARCH_PORT: 'tcp://127.0.0.1:15000',
      VISUAL_SEARCH_PORT_3107_TCP: 'tcp://127.0.0.1:15000',
      VISUAL_SEARCH_PORT_3107_TCP_PROTO: 'tcp',
      VISUAL_SEARCH_PORT_3107_TCP_PORT: '15000',
      VISUAL_SEARCH_PORT_3107_TCP_ADDR: '127.0.0.1',
    });
  });
});

describe('the substitution map', () => {
  const map: SubstitutionMap = {
    hosts: { 'nats.nats.svc.cluster.local:4222': '127.0.0.1:14222' },
    listenAddress: { from: '0.0.0.0', to: '127.0.0.1' },
    ports: new Map([['visual-search', new Map([[3107, 15000]])]]),
    workdir: { from: '/app', to: '/checkout' },
    node: { from: 'node', to: '/opt/node' },
    added: {},
    replaced: {},
  };
  const image = imageDefaultsOf('FROM a AS build\nWORKDIR /build\nENV X=1\nFROM b\nWORKDIR /app\nUSER node\nENV NODE_ENV=production HOST=0.0.0.0\n');

  it("reads the image's WORKDIR, USER and ENV from the Dockerfile's last stage", () => {
    expect(image).toEqual({ workdir: '/app', user: 'node', env: { NODE_ENV: 'production', HOST: '0.0.0.0' } });
  });

  it('changes only what the map lists, and refuses an in-cluster address it does not list', () => {
    const [container] = podContainers([configMap, deployment([{ name: 'PORT', value: '3107' }])], { sec: {} });
    const local = localProcessOf(container!, { map, image, services: servicesOf([service]), scratch: '/nonexistent-scratch', pathEnv: '/bin' });
    expect(local.sandbox).toMatchObject({ argv: ['/opt/node', 'dist/main.js', '--name=from-config', '$(A)'], cwd: '/checkout', uid: 1000, readOnlyRoot: true });
    expect(local.sandbox.env).toMatchObject({ NATS: 'nats://127.0.0.1:14222', HOST: '127.0.0.1', PORT: '15000', NODE_ENV: 'production', VISUAL_SEARCH_SERVICE_PORT: '15000' });
    expect(local.readyUrl).toBe('http://127.0.0.1:15000/readyz');
    const [unmapped] = podContainers([configMap, deployment([{ name: 'OTHER', value: 'http://qdrant.db.svc.cluster.local:6333' }])], { sec: {} });
    expect(() => localProcessOf(unmapped!, { map, image, services: [], scratch: '/nonexistent-scratch', pathEnv: '/bin' })).toThrow('in-cluster address qdrant.db.svc.cluster.local:6333 has no entry');
    expect(describeSubstitutions(map)).toContain('port      visual-search:3107 -> 127.0.0.1:15000');
  });

  it('sandboxes with the writable mounts bound first, every other mount read-only, and the pod identity without capabilities', () => {
    const script = sandboxScript({ argv: ['node', "it's"], env: {}, cwd: '/checkout', readOnlyRoot: true, mounts: [{ hostDir: '/scratch/tmp', path: '/tmp', readOnly: false }], uid: 1000, gid: 1000 });
    expect(script.indexOf("mount --bind '/scratch/tmp' '/tmp'")).toBeLessThan(script.indexOf('remount,ro,bind "$mp"'));
    expect(script).toContain("case \"$mp\" in /proc|/proc/*|/sys|/sys/*|/dev|/dev/*|'/tmp') continue");
    expect(script).toContain("exec 'setpriv' '--reuid=1000' '--regid=1000' '--clear-groups' '--inh-caps=-all' '--bounding-set=-all' '--no-new-privs' '--' 'node' 'it'\\''s'");
  });

  it("binds a mount whose host directory lies under another mount's path before that mount hides it (a Secret's files in the scratch under /tmp)", () => {
    const mounts = [
      { hostDir: '/tmp/boot/pods/gateway/tmp', path: '/tmp', readOnly: false },
      { hostDir: '/tmp/boot/pods/gateway/nats-credentials', path: '/var/run/secrets/openpaw/nats', readOnly: true },
    ];
    const script = sandboxScript({ argv: ['node'], env: {}, cwd: '/checkout', readOnlyRoot: true, mounts, uid: 1000, gid: 1000 });
    expect(script.indexOf("mount --bind '/tmp/boot/pods/gateway/nats-credentials' '/var/run/secrets/openpaw/nats'")).toBeGreaterThan(-1);
    expect(script.indexOf("mount --bind '/tmp/boot/pods/gateway/nats-credentials' '/var/run/secrets/openpaw/nats'")).toBeLessThan(script.indexOf("mount --bind '/tmp/boot/pods/gateway/tmp' '/tmp'"));
    expect(script).toContain("mount -o remount,ro,bind '/var/run/secrets/openpaw/nats'");
  });
});

describe('docker-compose.yml as the compose boot test reads it', () => {
  it('interpolates from the shell as compose does', () => {
    expect(interpolateCompose('${A:-x} ${A-y} ${B:-z} $${B} ${B}', { A: '', B: 'b' })).toBe('x  b ${B} b');
  });

  it("takes each service built here with its command, environment, the image's user and its healthcheck's URL", () => {
    const { ours, others } = composeContainers(readFileSync(join(import.meta.dirname, '../../../docker-compose.yml'), 'utf8'), {}, 1000);
    expect(Object.keys(others).sort()).toEqual(['gcs', 'nats', 'otel-collector', 'postgres', 'qdrant']);
    expect(ours.find((c) => c.workload === 'provision')).toMatchObject({ argv: ['sh', '-c', 'node dist/tools/provision.js && node dist/tools/migrate.js'], readiness: undefined, runAsUser: 1000 });
    expect(ours.find((c) => c.workload === 'gateway')).toMatchObject({
      argv: serviceCommand('gateway'),
      env: { PORT: '3000', OPENPAW_JWT_SECRET: 'change-me-change-me-change-me-change-me' },
      ports: { http: 3000, metrics: 9464 },
      readiness: { path: '/readyz', port: 3000 },
      startupBudgetMs: undefined,
      readOnlyRootFilesystem: false,
    });
  });
});
