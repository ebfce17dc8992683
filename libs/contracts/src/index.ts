export * from './subjects.js';
export * from './message-definition.js';
export * from './envelope.js';
export { catalog, definitionForSubject } from './catalog.js';
export * from './messages/workflow.js';
export * from './ids.js';
