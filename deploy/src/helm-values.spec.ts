import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { HELM_VALUES, helmValues, isPlainExpression, renderHelmTemplate, settingsFromValues, type HelmValues } from './helm-values.js';
import { renderPlatform, type K8sObject } from './render.js';
import { MONITORING_KINDS } from './monitoring.js';
import { DEFAULT_SETTINGS } from './settings.js';

const chart = join(import.meta.dirname, '../helm/openpaw');
const template = (file: string): string => readFileSync(join(chart, 'templates', file), 'utf8');

function objectsOf(text: string): unknown[] {
  return parseAllDocuments(text)
    .map((doc) => doc.toJS() as unknown)
    .filter((object) => object !== null);
}

/** What `helm template -f values --namespace ns` gives, by our plain renderer, file by file. */
function helmRender(values: HelmValues, namespace: string): unknown[] {
  return ['platform.yaml', 'monitoring.yaml', 'keda.yaml', 'hpa.yaml', 'maths-reindex-dry-run.yaml', 'maths-reindex.yaml'].flatMap((file) => objectsOf(renderHelmTemplate(template(file), values, namespace)));
}

/** What cdk8s synthesizes for the same values (the chart leaves the Namespace to `--create-namespace`). */
function cdk8sRender(values: HelmValues, namespace: string): unknown[] {
  const rendered = renderPlatform(settingsFromValues(DEFAULT_SETTINGS, values, namespace));
  const flags = values as { autoscaling: { keda: boolean }; monitoring: { serviceMonitor: boolean }; mathsReindex: { dryRun: boolean; sweep: boolean } };
  const platform = rendered.platform.filter((o: K8sObject) => o.kind !== 'Namespace' && (flags.monitoring.serviceMonitor || !MONITORING_KINDS.has(o.kind)));
  // The chart's files come in this order: the platform without, then with, the ServiceMonitor and PrometheusRule.
  const ordered = [...platform.filter((o) => !MONITORING_KINDS.has(o.kind)), ...platform.filter((o) => MONITORING_KINDS.has(o.kind))];
  const sweeps = [...(flags.mathsReindex.dryRun ? rendered.mathsReindexDryRun : []), ...(flags.mathsReindex.sweep ? rendered.mathsReindex : [])];
  return JSON.parse(JSON.stringify([...ordered, ...(flags.autoscaling.keda ? rendered.keda : rendered.hpa), ...sweeps])) as unknown[];
}

const VALUE_SETS: Record<string, { readonly namespace: string; readonly values: HelmValues }> = {
  'the defaults (values.yaml)': { namespace: 'openpaw', values: parse(readFileSync(join(chart, 'values.yaml'), 'utf8')) as HelmValues },
  'another cluster: own namespaces, Secrets, CIDR, tracing and host; HPA instead of KEDA; the maths re-key preview': {
    namespace: 'paw-staging',
    values: {
      ...helmValues(DEFAULT_SETTINGS, { autoscaling: { keda: false }, monitoring: { serviceMonitor: true }, mathsReindex: { dryRun: true, sweep: false } }),
      image: 'registry.internal/openpaw:1.2.3',
      nats: { url: 'nats://nats.messaging.svc.cluster.local:4222', namespace: 'messaging' },
      postgres: { cidr: '172.20.0.0/16' },
      // Providers reached through the cluster's egress range only, two hosts in it cut out.
      egress: { httpsCidr: '203.0.113.0/24', httpsExcept: '203.0.113.7/32, 203.0.113.8/32' },
      namespaces: { ingress: 'traefik', monitoring: 'observability', keda: 'keda-system' },
      secrets: { database: 'pg-url', gatewayAuth: 'gw-auth', providersPrefix: 'llm-keys', keyOpening: 'research-keys', natsCredentialsPrefix: 'paw-nats', natsTls: 'paw-nats-tls' },
      tracing: { otlpEndpoint: 'http://otel.observability.svc.cluster.local:4318' },
      ingress: { className: 'traefik', host: 'paw.staging.example.org', tlsSecretName: 'paw-staging-tls' },
      monitoring: { release: 'prom', serviceMonitor: true, llmCostAlertUsdPerHour: '75' },
      // Helm merges these over values.yaml, so the other accounts keep their defaults.
      workloadIdentity: {
        ...(helmValues(DEFAULT_SETTINGS)['workloadIdentity'] as Record<string, string>),
        gateway: 'paw-gateway@staging-project.iam.gserviceaccount.com',
        visualSearch: 'paw-visual@staging-project.iam.gserviceaccount.com',
      },
      resources: {
        ...(helmValues(DEFAULT_SETTINGS)['resources'] as Record<string, Record<string, string>>),
        assetsVideo: { cpuRequest: '2000m', cpuLimit: '4000m', memoryRequest: '3Gi', memoryLimit: '6Gi' },
      },
    },
  },
  'no Prometheus Operator, KEDA on, the maths re-key sweep': {
    namespace: 'openpaw-dev',
    values: {
      ...helmValues(
        { ...DEFAULT_SETTINGS, ingress: { className: 'nginx', host: 'dev.openpaw.test', tlsSecretName: 'dev-tls' } },
        { autoscaling: { keda: true }, monitoring: { serviceMonitor: false }, mathsReindex: { dryRun: false, sweep: true } },
      ),
    },
  },
};

describe('the Helm chart', () => {
  it.each(Object.entries(VALUE_SETS))('renders %s to exactly what cdk8s synthesizes for the same values', (_name, { namespace, values }) => {
    const helm = helmRender(values, namespace);
    expect(helm.length).toBeGreaterThan(50);
    expect(helm).toEqual(cdk8sRender(values, namespace));
  });

  it('has a value for every setting it substitutes, and values.yaml holds the defaults', () => {
    const defaults = parse(readFileSync(join(chart, 'values.yaml'), 'utf8')) as HelmValues;
    expect(defaults).toEqual(helmValues(DEFAULT_SETTINGS));
    expect(HELM_VALUES.map((v) => v.path)).toEqual(expect.arrayContaining(['image', 'secrets.database', 'postgres.cidr', 'tracing.otlpEndpoint', 'ingress.host', 'monitoring.release']));
  });

  it("takes each ServiceAccount's workload identity from values, the others keeping their defaults", () => {
    const { namespace, values } = VALUE_SETS['another cluster: own namespaces, Secrets, CIDR, tracing and host; HPA instead of KEDA; the maths re-key preview']!;
    const accounts = helmRender(values, namespace).filter((o): o is { kind: string; metadata: { name: string; annotations?: Record<string, string> } } => (o as { kind?: string }).kind === 'ServiceAccount');
    const identityOf = (name: string) => accounts.find((a) => a.metadata.name === name)?.metadata.annotations?.['iam.gke.io/gcp-service-account'];
    expect(identityOf('openpaw-gateway')).toBe('paw-gateway@staging-project.iam.gserviceaccount.com');
    expect(identityOf('openpaw-visual-search')).toBe('paw-visual@staging-project.iam.gserviceaccount.com');
    expect(identityOf('openpaw-solve')).toBe('openpaw-solve@openpaw.iam.gserviceaccount.com');
    expect(identityOf('openpaw-retention')).toBe('openpaw-retention@openpaw.iam.gserviceaccount.com');
  });

  it("takes each Deployment's requests and limits from values, the others keeping topology.ts's", () => {
    const { namespace, values } = VALUE_SETS['another cluster: own namespaces, Secrets, CIDR, tracing and host; HPA instead of KEDA; the maths re-key preview']!;
    type Deployment = { kind: string; metadata: { name: string }; spec: { template: { spec: { containers: { resources: unknown }[] } } } };
    const deployments = helmRender(values, namespace).filter((o): o is Deployment => (o as { kind?: string }).kind === 'Deployment');
    const resourcesOf = (name: string) => deployments.find((d) => d.metadata.name === name)?.spec.template.spec.containers[0]?.resources;
    expect(resourcesOf('assets-video')).toEqual({ limits: { cpu: '4000m', memory: '6Gi' }, requests: { cpu: '2000m', memory: '3Gi' } });
    expect(resourcesOf('solve')).toEqual({ limits: { cpu: '500m', memory: '1024Mi' }, requests: { cpu: '100m', memory: '448Mi' } });
  });

  it('takes the HTTPS egress destination and the ranges cut out of it from values, for the workloads that call out only', () => {
    const { namespace, values } = VALUE_SETS['another cluster: own namespaces, Secrets, CIDR, tracing and host; HPA instead of KEDA; the maths re-key preview']!;
    type Policy = { kind: string; metadata: { name: string }; spec: { egress?: { to?: { ipBlock?: { cidr: string; except?: string[] } }[]; ports?: { port: number }[] }[] } };
    const policies = helmRender(values, namespace).filter((o): o is Policy => (o as { kind?: string }).kind === 'NetworkPolicy');
    const httpsOf = (name: string) => policies.find((p) => p.metadata.name === name)?.spec.egress?.find((rule) => rule.ports?.some((port) => port.port === 443))?.to;
    expect(httpsOf('solve')).toEqual([{ ipBlock: { cidr: '203.0.113.0/24', except: ['203.0.113.7/32', '203.0.113.8/32'] } }]);
    expect(httpsOf('coordinator')).toBeUndefined();
    expect(() => settingsFromValues(DEFAULT_SETTINGS, { egress: { httpsExcept: ' , ' } }, 'ns')).toThrow(/egress\.httpsExcept must list at least one CIDR/);
  });

  it('refuses any construct but plain substitutions and whole-file flags', () => {
    for (const construct of ['{{ .Values.image | upper }}', '{{ include "x" . }}', '{{- range .Values.list }}', '{{ .Values.nope }}', '{{ toYaml .Values.ingress }}']) {
      expect(isPlainExpression(construct)).toBe(false);
      expect(() => renderHelmTemplate(`image: ${construct}\n`, helmValues(DEFAULT_SETTINGS), 'ns')).toThrow(/not a plain chart expression/);
    }
    expect(() => renderHelmTemplate('host: {{ .Values.ingress.host }}\n', {}, 'ns')).toThrow(/\.Values\.ingress\.host is not set/);
  });
});
