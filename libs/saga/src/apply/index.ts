export { applyInput } from './apply-input.js';
export { applyStart, type StartRequest } from './apply-start.js';
export type { Applied } from './applied.js';
export { COORDINATOR_SOURCE, unknownRunRefusal } from './engine-events.js';
