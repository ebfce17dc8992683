import { ApiObject, Duration, JsonPatch, Size } from 'cdk8s';
import * as kplus from 'cdk8s-plus-34';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { Construct } from 'constructs';
import { selectorLabels, workloadLabels } from './labels.js';
import { RESTRICTED_CONTAINER, RESTRICTED_POD } from './security.js';
import type { ResourceQuantities } from './settings.js';
import { METRICS_PORT, type ServiceName, serviceCommand, terminationGraceSeconds } from './topology.js';
import { typedObject } from './typed-object.js';

export interface WorkloadProps {
  /** Deployment, Service and PDB name: `<service>` or `<service>-<lane>`. */
  readonly name: string;
  readonly service: ServiceName;
  readonly component: 'service' | 'lane';
  readonly image: string;
  readonly port: number;
  readonly replicas: number;
  /** Kubernetes quantities (chart values), set as given. */
  readonly resources: ResourceQuantities;
  readonly drainSeconds: number;
  readonly config: kplus.IConfigMap;
  /** Extra variables (secrets, lanes). */
  readonly env: Record<string, kplus.EnvValue>;
  readonly envFrom: readonly kplus.EnvFrom[];
  /** Writable scratch directories (the root filesystem is read-only). */
  readonly scratch: readonly { readonly name: string; readonly path: string; readonly sizeMiB: number }[];
  /** Other mounts (the blob volume, the NATS credentials). */
  readonly mounts: readonly { readonly path: string; readonly volume: kplus.Volume; readonly readOnly?: boolean }[];
  /** The service's ServiceAccount (workload identity); its token is never mounted. */
  readonly serviceAccount: kplus.IServiceAccount;
}

const quantity = (value: string): kplus.k8s.Quantity => kplus.k8s.Quantity.fromString(value);

/**
 * One Deployment of a service or of a lane: its pods (restricted PSS, probes, resources, graceful
 * shutdown), its Service (http + metrics ports), a PDB and a zone/node topology spread.
 */
export class Workload extends Construct {
  readonly deployment: kplus.Deployment;
  readonly labels: Record<string, string>;

  constructor(scope: Construct, id: string, props: WorkloadProps) {
    super(scope, id);
    this.labels = selectorLabels(props.name);
    const probe = (path: string, failureThreshold: number): kplus.Probe =>
      kplus.Probe.fromHttpGet(path, { port: props.port, periodSeconds: Duration.seconds(10), timeoutSeconds: Duration.seconds(3), failureThreshold });
    this.deployment = new kplus.Deployment(this, 'deployment', {
      metadata: { name: props.name, labels: workloadLabels(props.name, props.component) },
      podMetadata: { labels: workloadLabels(props.name, props.component) },
      select: false,
      spread: false,
      replicas: props.replicas,
      strategy: kplus.DeploymentStrategy.rollingUpdate({ maxSurge: kplus.PercentOrAbsolute.absolute(1), maxUnavailable: kplus.PercentOrAbsolute.absolute(0) }),
      securityContext: RESTRICTED_POD,
      automountServiceAccountToken: false,
      serviceAccount: props.serviceAccount,
      terminationGracePeriod: Duration.seconds(terminationGraceSeconds(props.drainSeconds)),
      containers: [
        {
          name: props.service,
          image: props.image,
          imagePullPolicy: kplus.ImagePullPolicy.IF_NOT_PRESENT,
          command: serviceCommand(props.service),
          ports: [
            { name: 'http', number: props.port },
            { name: 'metrics', number: METRICS_PORT },
          ],
          envFrom: [kplus.Env.fromConfigMap(props.config), ...props.envFrom],
          envVariables: { PORT: kplus.EnvValue.fromValue(String(props.port)), ...props.env },
          startup: probe('/healthz', 30),
          liveness: probe('/healthz', 3),
          readiness: probe('/readyz', 2),
          securityContext: RESTRICTED_CONTAINER,
        },
      ],
    });
    this.deployment.select(kplus.LabelSelector.of({ labels: this.labels }));
    const container = this.deployment.containers[0];
    for (const dir of props.scratch) {
      const volume = kplus.Volume.fromEmptyDir(this, `scratch-${dir.name}`, dir.name, { sizeLimit: Size.mebibytes(dir.sizeMiB) });
      container?.mount(dir.path, volume);
    }
    for (const mount of props.mounts) container?.mount(mount.path, mount.volume, { readOnly: mount.readOnly ?? false });
    ApiObject.of(this.deployment).addJsonPatch(
      // The autoscaler owns the replica count; a count here would reset it on every apply.
      JsonPatch.remove('/spec/replicas'),
      // Quantities as given (chart values): cdk8s-plus builds them from numbers only. The patch applies
      // before the Kubernetes types serialise, so each is a `k8s.Quantity`, which prints its string.
      JsonPatch.add('/spec/template/spec/containers/0/resources', {
        limits: { cpu: quantity(props.resources.cpuLimit), memory: quantity(props.resources.memoryLimit) },
        requests: { cpu: quantity(props.resources.cpuRequest), memory: quantity(props.resources.memoryRequest) },
      }),
      JsonPatch.add('/spec/template/spec/topologySpreadConstraints', [
        { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: this.labels } },
        { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: this.labels } },
      ]),
    );

    new kplus.Service(this, 'service', {
      metadata: { name: props.name, labels: workloadLabels(props.name, props.component) },
      selector: this.deployment,
      ports: [
        { name: 'http', port: props.port, targetPort: props.port },
        { name: 'metrics', port: METRICS_PORT, targetPort: METRICS_PORT },
      ],
    });

    typedObject<IPodDisruptionBudget>(this, 'pdb', {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: props.name, labels: workloadLabels(props.name, props.component) },
      spec: { maxUnavailable: 1, selector: { matchLabels: this.labels } },
    });
  }
}
