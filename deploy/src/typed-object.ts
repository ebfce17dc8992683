import { ApiObject } from 'cdk8s';
import type { Construct } from 'constructs';

/** What every Kubernetes object body has; the kubernetes-models interfaces (`IPodDisruptionBudget`, ...) satisfy it. */
interface ObjectBody {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata?: { readonly name?: string; readonly namespace?: string; readonly labels?: Record<string, string> };
}

/**
 * A Kubernetes object that cdk8s-plus has no construct for (PDB, ScaledObject, ServiceMonitor, ...),
 * typed by its kubernetes-models interface so a misspelt field fails the typecheck.
 */
export function typedObject<T extends ObjectBody>(scope: Construct, id: string, body: T): ApiObject {
  const { apiVersion, kind, metadata, ...rest } = body;
  return new ApiObject(scope, id, { apiVersion, kind, metadata: { ...metadata }, ...rest });
}
