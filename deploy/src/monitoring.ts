import type { IServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import type { Construct } from 'constructs';
import { PART_OF } from './labels.js';
import { typedObject } from './typed-object.js';

/** One ServiceMonitor for every OpenPaw Service: Prometheus scrapes the `metrics` port (never the public one). */
export function serviceMonitor(scope: Construct, release: string): void {
  typedObject<IServiceMonitor>(scope, 'servicemonitor', {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'ServiceMonitor',
    // `release`: what kube-prometheus-stack's Prometheus selects ServiceMonitors by.
    metadata: { name: 'openpaw', labels: { 'app.kubernetes.io/part-of': PART_OF, release } },
    spec: {
      selector: { matchLabels: { 'app.kubernetes.io/part-of': PART_OF } },
      endpoints: [{ port: 'metrics', path: '/metrics', interval: '30s' }],
    },
  });
}
