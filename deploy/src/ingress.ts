import type { IIngress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import type { Construct } from 'constructs';
import { PART_OF } from './labels.js';
import type { PlatformSettings } from './settings.js';
import { typedObject } from './typed-object.js';

/** The gateway's public entry: HTTPS for one host, through the cluster's ingress controller (its namespace alone may reach the gateway, see network.ts). */
export function gatewayIngress(scope: Construct, ingress: PlatformSettings['ingress']): void {
  typedObject<IIngress>(scope, 'gateway-ingress', {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: 'gateway', labels: { 'app.kubernetes.io/name': 'gateway', 'app.kubernetes.io/part-of': PART_OF } },
    spec: {
      ingressClassName: ingress.className,
      tls: [{ hosts: [ingress.host], secretName: ingress.tlsSecretName }],
      rules: [
        {
          host: ingress.host,
          http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'gateway', port: { name: 'http' } } } }] },
        },
      ],
    },
  });
}
