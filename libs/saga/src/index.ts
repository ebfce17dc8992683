export * from './definition.js';
export * from './records.js';
export { isAllowed, isReopenable, isTerminal, validateDefinition } from './transition-table.js';
export { applyInput, applyStart, COORDINATOR_SOURCE, type Applied, type StartRequest } from './apply/index.js';
export { SagaRegistry } from './registry.js';
export { replayRun, type ReplayMismatch, type ReplayReport } from './replay.js';
export { OutboxRelay, type EnvelopePublisher, type OutboxRelayOptions, type PublishedOutboxSink, type RelayObserver } from './relay.js';
export { TimerPoller, type TimerPollerOptions } from './timers.js';
export { SagaStore, foldTimerOperations, type BatchResult, type InputResult, type PendingInput } from './store/saga-store.js';
export { coordinatorEntities, WorkflowRunEntity, WorkflowStepLogEntity, InboxEntity, OutboxEntity, TimerEntity } from './store/entities.js';
export { sagaStoreCounters } from './store/store-counters.js';
export { coordinatorMigrations } from './store/migrations.js';
export { loadRunWithLogs } from './store/run-queries.js';
export { scenario, SagaScenario, ScenarioStep } from './scenario.js';
export { isCommandObservation, type CommandObservation, type CommandObserver } from './command-observation.js';
export { RUN_DEADLINE_TIMER, STEP_TIMER_PREFIX, stepTimeoutInputName, stepTimerName } from './step-timers.js';
export { batchMessageId, childIdempotencyKey, childRunIdFor, commandIdFor, effectMessageId } from './engine-ids.js';
export * from './command-steps.js';
export { sendBatch, type BatchItemOfEffect } from './batch-effects.js';
export {
  decideByTable,
  inputKeyOf,
  onChild,
  onClaim,
  onEvent,
  onHuman,
  onStart,
  onTimer,
  transitionsOf,
  type ChildInput,
  type HumanInput,
  type Row,
  type TimerInput,
  type WorkflowTable,
} from './workflow-table.js';
export { KEY_HOLDER_ENDED_TIMER_PREFIX, keyHolderEndedPayload, keyHolderOf, type KeyHolderEndedPayload } from './key-claims.js';
export { RunKeyEntity } from './store/entities.js';
