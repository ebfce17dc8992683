export { applyInput } from './apply-input.js';
export { applyStart, type StartRequest } from './apply-start.js';
export type { Applied } from './applied.js';
export { coalesceRunChanges, COORDINATOR_SOURCE, type RunChangeOptions, unknownRunRefusal } from './engine-events.js';
