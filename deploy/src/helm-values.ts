import { DEFAULT_RESOURCES, type PlatformSettings, type ResourceQuantities, SERVICE_ACCOUNT_OWNERS } from './settings.js';

/*
 * The Helm chart's values. No helm binary can be had where the manifests are built and tested, so
 * the templates stay plain: `{{ .Values.<path> }}` and `{{ .Release.Namespace }}` substitutions and
 * whole-file `{{- if … }}` flags, nothing else (`templateExpressions` lints it). Each value is a
 * string setting of `PlatformSettings`: the chart is synthesized with a unique token in its place,
 * and the token becomes the `.Values` path, so the chart and cdk8s cannot disagree on where a value goes.
 */

interface HelmValue {
  /** Dotted path under `.Values`. */
  readonly path: string;
  readonly read: (settings: PlatformSettings) => string;
  readonly write: (settings: PlatformSettings, value: string) => PlatformSettings;
}

function value(path: string, read: HelmValue['read'], write: HelmValue['write']): HelmValue {
  return { path, read, write };
}

/** A name as a `.Values` key: Go templates take no dashes in a path (`visual-search` → `visualSearch`). */
function valueKeyOf(name: string): string {
  return name.replace(/-([a-z])/g, (_m, letter: string) => letter.toUpperCase());
}

const RESOURCE_FIELDS: readonly (keyof ResourceQuantities)[] = ['cpuRequest', 'cpuLimit', 'memoryRequest', 'memoryLimit'];

/** The value listing the ranges cut out of the HTTPS egress destination: a comma-separated string, rendered as a YAML flow list. */
export const HTTPS_EXCEPT_PATH = 'egress.httpsExcept';

/** The one HTTPS egress destination the chart's values set (settings with more are synthesized by cdk8s only). */
function httpsEgressOf(settings: PlatformSettings): PlatformSettings['httpsEgress'][number] {
  const [first, ...more] = settings.httpsEgress;
  if (first === undefined || more.length > 0) throw new Error(`the Helm chart takes one HTTPS egress destination (egress.httpsCidr), settings have ${settings.httpsEgress.length}`);
  return first;
}

/** `a, b` → [a, b]; at least one (the chart renders `except: [<value>]`, and Kubernetes keeps an empty list apart from none). */
function cidrListOf(path: string, value: string): string[] {
  const list = value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (list.length === 0) throw new Error(`.Values.${path} must list at least one CIDR inside egress.httpsCidr, comma-separated`);
  return list;
}

export const HELM_VALUES: readonly HelmValue[] = [
  value('image', (s) => s.image, (s, v) => ({ ...s, image: v })),
  value('nats.url', (s) => s.natsUrl, (s, v) => ({ ...s, natsUrl: v })),
  value('nats.namespace', (s) => s.natsNamespace, (s, v) => ({ ...s, natsNamespace: v })),
  value('postgres.cidr', (s) => s.postgresCidr, (s, v) => ({ ...s, postgresCidr: v })),
  // HTTPS egress of the workloads that call out: one destination and the ranges cut out of it (`httpsEgress[0]`).
  value('egress.httpsCidr', (s) => httpsEgressOf(s).cidr, (s, v) => ({ ...s, httpsEgress: [{ ...httpsEgressOf(s), cidr: v }] })),
  value(HTTPS_EXCEPT_PATH, (s) => (httpsEgressOf(s).except ?? []).join(', '), (s, v) => ({ ...s, httpsEgress: [{ ...httpsEgressOf(s), except: cidrListOf(HTTPS_EXCEPT_PATH, v) }] })),
  value('namespaces.ingress', (s) => s.ingressNamespace, (s, v) => ({ ...s, ingressNamespace: v })),
  value('namespaces.monitoring', (s) => s.monitoringNamespace, (s, v) => ({ ...s, monitoringNamespace: v })),
  value('namespaces.keda', (s) => s.kedaNamespace, (s, v) => ({ ...s, kedaNamespace: v })),
  value('secrets.database', (s) => s.secrets.database, (s, v) => ({ ...s, secrets: { ...s.secrets, database: v } })),
  value('secrets.gatewayAuth', (s) => s.secrets.gatewayAuth, (s, v) => ({ ...s, secrets: { ...s.secrets, gatewayAuth: v } })),
  value('secrets.providersPrefix', (s) => s.secrets.providersPrefix, (s, v) => ({ ...s, secrets: { ...s.secrets, providersPrefix: v } })),
  value('secrets.keyOpening', (s) => s.secrets.keyOpening, (s, v) => ({ ...s, secrets: { ...s.secrets, keyOpening: v } })),
  value('secrets.natsCredentialsPrefix', (s) => s.secrets.natsCredentialsPrefix, (s, v) => ({ ...s, secrets: { ...s.secrets, natsCredentialsPrefix: v } })),
  value('secrets.natsTls', (s) => s.secrets.natsTls, (s, v) => ({ ...s, secrets: { ...s.secrets, natsTls: v } })),
  value('tracing.otlpEndpoint', (s) => s.traceBackendEndpoint, (s, v) => ({ ...s, traceBackendEndpoint: v })),
  value('ingress.className', (s) => s.ingress.className, (s, v) => ({ ...s, ingress: { ...s.ingress, className: v } })),
  value('ingress.host', (s) => s.ingress.host, (s, v) => ({ ...s, ingress: { ...s.ingress, host: v } })),
  value('ingress.tlsSecretName', (s) => s.ingress.tlsSecretName, (s, v) => ({ ...s, ingress: { ...s.ingress, tlsSecretName: v } })),
  value('monitoring.release', (s) => s.monitoringRelease, (s, v) => ({ ...s, monitoringRelease: v })),
  value('monitoring.llmCostAlertUsdPerHour', (s) => s.llmCostAlertUsdPerHour, (s, v) => ({ ...s, llmCostAlertUsdPerHour: v })),
  // One per ServiceAccount: the cloud identity its workload-identity annotation names (`visual-search` → `visualSearch`).
  ...SERVICE_ACCOUNT_OWNERS.map((owner) =>
    value(
      `workloadIdentity.${valueKeyOf(owner)}`,
      (s) => s.workloadIdentity.accounts[owner] ?? '',
      (s, v) => ({ ...s, workloadIdentity: { ...s.workloadIdentity, accounts: { ...s.workloadIdentity.accounts, [owner]: v } } }),
    ),
  ),
  // Requests and limits per Deployment (`resources.assetsVideo.cpuLimit`, …).
  ...Object.keys(DEFAULT_RESOURCES).flatMap((deployment) =>
    RESOURCE_FIELDS.map((field) =>
      value(
        `resources.${valueKeyOf(deployment)}.${field}`,
        (s) => s.resources[deployment]?.[field] ?? '',
        (s, v) => ({ ...s, resources: { ...s.resources, [deployment]: { ...(s.resources[deployment] ?? DEFAULT_RESOURCES[deployment]!), [field]: v } } }),
      ),
    ),
  ),
];

/** The on/off flags of whole template files. */
export interface HelmFlags {
  readonly autoscaling: { readonly keda: boolean };
  readonly monitoring: { readonly serviceMonitor: boolean };
  /** The on-demand maths re-key Jobs (post-install/upgrade hooks): its preview, and the sweep. Off by default. */
  readonly mathsReindex?: { readonly dryRun: boolean; readonly sweep: boolean };
}

/** The paths of the flags, as `.Values` holds them. */
const FLAG_PATHS = ['autoscaling.keda', 'monitoring.serviceMonitor', 'mathsReindex.dryRun', 'mathsReindex.sweep'] as const;

export type HelmValues = Record<string, unknown>;

function setPath(target: Record<string, unknown>, path: string, leaf: unknown): void {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1] ?? path] = leaf;
}

/** A scalar value as Helm prints it; a map or list where a scalar belongs is refused, naming the path. */
function scalar(path: string, given: unknown): string {
  if (typeof given === 'string' || typeof given === 'number' || typeof given === 'boolean') return String(given);
  throw new Error(`.Values.${path} must be a string, got ${JSON.stringify(given)}`);
}

function getPath(values: HelmValues, path: string): unknown {
  return path.split('.').reduce<unknown>((node, key) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined), values);
}

/** values.yaml: every value as these settings have it, and the flags. */
export function helmValues(settings: PlatformSettings, flags: HelmFlags = { autoscaling: { keda: true }, monitoring: { serviceMonitor: true } }): HelmValues {
  const values: Record<string, unknown> = {};
  for (const v of HELM_VALUES) setPath(values, v.path, v.read(settings));
  setPath(values, 'autoscaling.keda', flags.autoscaling.keda);
  setPath(values, 'monitoring.serviceMonitor', flags.monitoring.serviceMonitor);
  setPath(values, 'mathsReindex.dryRun', flags.mathsReindex?.dryRun ?? false);
  setPath(values, 'mathsReindex.sweep', flags.mathsReindex?.sweep ?? false);
  return values;
}

/** The settings a values file describes (what `helm install -f` should produce), on top of `base`. */
export function settingsFromValues(base: PlatformSettings, values: HelmValues, releaseNamespace: string): PlatformSettings {
  let settings: PlatformSettings = { ...base, namespace: releaseNamespace };
  for (const v of HELM_VALUES) {
    const given = getPath(values, v.path);
    if (given !== undefined) settings = v.write(settings, scalar(v.path, given));
  }
  return settings;
}

const RELEASE_NAMESPACE_TOKEN = '__OPENPAW_RELEASE_NAMESPACE__';
const tokenOf = (path: string): string => `__OPENPAW_VALUE_${path.replace(/\./g, '_')}__`;

/** The token a value's path is synthesized as (what the chart's template turns into `{{ .Values.<path> }}`). */
export const helmValueToken = tokenOf;

/** Settings with a token in place of every value and of the namespace, and the template expression each token becomes. */
export function tokenizedSettings(base: PlatformSettings): { readonly settings: PlatformSettings; readonly expressions: ReadonlyMap<string, string> } {
  let settings: PlatformSettings = { ...base, namespace: RELEASE_NAMESPACE_TOKEN };
  const expressions = new Map<string, string>([[RELEASE_NAMESPACE_TOKEN, '{{ .Release.Namespace }}']]);
  for (const v of HELM_VALUES) {
    settings = v.write(settings, tokenOf(v.path));
    expressions.set(tokenOf(v.path), `{{ .Values.${v.path} }}`);
  }
  return { settings, expressions };
}

const EXPRESSION = /\{\{-? ?([^}]*?) ?-?\}\}/g;

/** Every template expression in a chart file (what the lint compares with the allowed forms). */
export function templateExpressions(template: string): string[] {
  return [...template.matchAll(EXPRESSION)].map((m) => m[0]);
}

/** Whether an expression is one of the plain forms the chart may use. */
export function isPlainExpression(expression: string): boolean {
  const paths = new Set<string>([...HELM_VALUES.map((v) => v.path), ...FLAG_PATHS]);
  const substitution = /^\{\{ \.Values\.([A-Za-z.]+) \}\}$/.exec(expression);
  if (substitution !== null) return paths.has(substitution[1] ?? '');
  const flag = /^\{\{- if (not )?\.Values\.([A-Za-z.]+) \}\}$/.exec(expression);
  if (flag !== null) return paths.has(flag[2] ?? '');
  return expression === '{{ .Release.Namespace }}' || expression === '{{- end }}';
}

/**
 * Renders a chart file the way Helm would, for the plain forms only (throws on anything else): a
 * whole-file flag, then the substitutions. Our own stand-in for `helm template`, compared with cdk8s.
 */
export function renderHelmTemplate(template: string, values: HelmValues, releaseNamespace: string): string {
  for (const expression of templateExpressions(template)) if (!isPlainExpression(expression)) throw new Error(`not a plain chart expression: ${expression}`);
  const wrapped = /^\{\{- if (not )?\.Values\.([A-Za-z.]+) \}\}\n([\s\S]*)\{\{- end \}\}\n$/.exec(template);
  let body = template;
  if (wrapped !== null) {
    const on = Boolean(getPath(values, wrapped[2] ?? ''));
    if (on === (wrapped[1] !== undefined)) return '';
    body = wrapped[3] ?? '';
  }
  return body.replace(/\{\{ \.Release\.Namespace \}\}/g, releaseNamespace).replace(/\{\{ \.Values\.([A-Za-z.]+) \}\}/g, (_m, path: string) => {
    const given = getPath(values, path);
    if (given === undefined) throw new Error(`.Values.${path} is not set`);
    return scalar(path, given);
  });
}
