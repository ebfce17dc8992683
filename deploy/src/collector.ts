import { Duration, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-34';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { Construct } from 'constructs';
import { stringify } from 'yaml';
import { selectorLabels, workloadLabels } from './labels.js';
import { RESTRICTED_CONTAINER, RESTRICTED_POD } from './security.js';
import { typedObject } from './typed-object.js';

export const COLLECTOR_NAME = 'otel-collector';
export const COLLECTOR_IMAGE = 'otel/opentelemetry-collector-contrib:0.140.0';
export const COLLECTOR_OTLP_HTTP = 4318;
const HEALTH_PORT = 13133;
const METRICS_PORT = 8888;

/** The collector's pipeline: OTLP in, batched, OTLP/HTTP out to the trace backend. */
export function collectorConfig(backendEndpoint: string): Record<string, unknown> {
  return {
    receivers: { otlp: { protocols: { http: { endpoint: `0.0.0.0:${COLLECTOR_OTLP_HTTP}` } } } },
    processors: { memory_limiter: { check_interval: '1s', limit_percentage: 80, spike_limit_percentage: 20 }, batch: {} },
    exporters: { otlphttp: { endpoint: backendEndpoint } },
    extensions: { health_check: { endpoint: `0.0.0.0:${HEALTH_PORT}` } },
    service: {
      extensions: ['health_check'],
      telemetry: { metrics: { readers: [{ pull: { exporter: { prometheus: { host: '0.0.0.0', port: METRICS_PORT } } } }] } },
      pipelines: { traces: { receivers: ['otlp'], processors: ['memory_limiter', 'batch'], exporters: ['otlphttp'] } },
    },
  };
}

/** An OpenTelemetry Collector (gateway mode) the services export traces to over OTLP/HTTP. */
export function collector(scope: Construct, backendEndpoint: string): Record<string, string> {
  const labels = selectorLabels(COLLECTOR_NAME);
  const config = new kplus.ConfigMap(scope, 'collector-config', {
    metadata: { name: COLLECTOR_NAME },
    data: { 'config.yaml': stringify(collectorConfig(backendEndpoint)) },
  });
  const probe = kplus.Probe.fromHttpGet('/', { port: HEALTH_PORT, periodSeconds: Duration.seconds(10) });
  const deployment = new kplus.Deployment(scope, 'collector', {
    metadata: { name: COLLECTOR_NAME, labels: workloadLabels(COLLECTOR_NAME, 'telemetry') },
    podMetadata: { labels: workloadLabels(COLLECTOR_NAME, 'telemetry') },
    select: false,
    spread: false,
    replicas: 2,
    securityContext: RESTRICTED_POD,
    automountServiceAccountToken: false,
    terminationGracePeriod: Duration.seconds(30),
    containers: [
      {
        name: 'collector',
        image: COLLECTOR_IMAGE,
        args: ['--config=/conf/config.yaml'],
        ports: [
          { name: 'otlp-http', number: COLLECTOR_OTLP_HTTP },
          { name: 'metrics', number: METRICS_PORT },
          { name: 'health', number: HEALTH_PORT },
        ],
        liveness: probe,
        readiness: probe,
        resources: {
          cpu: { request: kplus.Cpu.millis(100), limit: kplus.Cpu.millis(500) },
          memory: { request: Size.mebibytes(128), limit: Size.mebibytes(512) },
        },
        securityContext: RESTRICTED_CONTAINER,
      },
    ],
  });
  deployment.select(kplus.LabelSelector.of({ labels }));
  deployment.containers[0]?.mount('/conf', kplus.Volume.fromConfigMap(scope, 'collector-config-volume', config));
  new kplus.Service(scope, 'collector-service', {
    metadata: { name: COLLECTOR_NAME },
    selector: deployment,
    ports: [{ name: 'otlp-http', port: COLLECTOR_OTLP_HTTP, targetPort: COLLECTOR_OTLP_HTTP }],
  });
  typedObject<IPodDisruptionBudget>(scope, 'collector-pdb', {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name: COLLECTOR_NAME },
    spec: { maxUnavailable: 1, selector: { matchLabels: labels } },
  });
  return labels;
}
