import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import type { Construct } from 'constructs';
import { selectorLabels } from './labels.js';
import { PLATFORM_ACCOUNT } from './nats-credentials.js';
import { typedObject } from './typed-object.js';

export interface ScalingProps {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  /** The JetStream durables (one per lane the Deployment consumes) whose pending messages drive the scale; KEDA follows the largest (none: CPU only). */
  readonly lags: readonly LaneLag[];
}

export interface LaneLag {
  readonly monitoringEndpoint: string;
  readonly stream: string;
  readonly consumer: string;
  /** Pending commands per replica before another replica is added. */
  readonly threshold: number;
}

const CPU_TARGET_PERCENT = 70;

/**
 * KEDA ScaledObject on the consumer lag of every lane the Deployment consumes (nats-jetstream scaler,
 * read from the NATS monitoring endpoint; KEDA scales to the largest) with CPU as a last trigger; if the scaler cannot read the lag, KEDA holds `fallback`
 * replicas. KEDA owns the HPA it creates, so there is no second HPA on the same Deployment.
 */
export function scaledObject(scope: Construct, props: ScalingProps): void {
  typedObject<IScaledObject>(scope, `${props.name}-scaledobject`, {
    apiVersion: 'keda.sh/v1alpha1',
    kind: 'ScaledObject',
    metadata: { name: props.name, labels: selectorLabels(props.name) },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: props.name },
      minReplicaCount: props.min,
      maxReplicaCount: props.max,
      pollingInterval: 15,
      cooldownPeriod: 300,
      fallback: { failureThreshold: 3, replicas: props.min },
      triggers: [
        ...props.lags.map((lag) => ({
          type: 'nats-jetstream',
          metadata: {
            natsServerMonitoringEndpoint: lag.monitoringEndpoint,
            // The platform's account (the accounts block of deploy/nats), not the no-auth `$G`.
            account: PLATFORM_ACCOUNT,
            stream: lag.stream,
            consumer: lag.consumer,
            lagThreshold: String(lag.threshold),
            activationLagThreshold: '0',
            useHttps: 'false',
          },
        })),
        { type: 'cpu', metricType: 'Utilization', metadata: { value: String(CPU_TARGET_PERCENT) } },
      ],
    },
  });
}

/** A plain CPU HPA: the fallback for clusters without KEDA (the Helm chart picks one by `keda.enabled`). */
export function cpuAutoscaler(scope: Construct, props: ScalingProps): void {
  typedObject<IHorizontalPodAutoscaler>(scope, `${props.name}-hpa`, {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: props.name, labels: selectorLabels(props.name) },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: props.name },
      minReplicas: props.min,
      maxReplicas: props.max,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: CPU_TARGET_PERCENT } } }],
    },
  });
}
