import { type AnySagaDefinition, SagaRegistry } from '@openpaw/saga';

/** Every workflow the coordinator runs: one saga definition each (specs 01–05). */
export const workflowDefinitions: readonly AnySagaDefinition[] = [];

export function productionRegistry(): SagaRegistry {
  return new SagaRegistry(workflowDefinitions);
}
