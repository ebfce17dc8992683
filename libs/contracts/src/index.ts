export * from './subjects.js';
export * from './message-definition.js';
export * from './lanes.js';
export * from './envelope.js';
export { catalog, definitionForSubject } from './catalog.js';
export * from './messages/workflow.js';
export * from './ids.js';
export * from './messages/problem.js';
export * from './messages/ingestion.js';
export * from './messages/retrieval.js';
export * from './messages/solve.js';
export * from './messages/assets.js';
export * from './messages/artifacts.js';
export * from './messages/research-flow.js';
export * from './messages/research-webhook.js';
export * from './messages/visual-search.js';
export * from './messages/visual-degrees.js';

// Paper search (issue 13).
export * from './messages/paper-search-model.js';
export * from './messages/paper-search-decisions.js';
export * from './messages/paper-search.js';
export * from './messages/paper-search-accumulation.js';
export * from './messages/paper-search-run.js';
export * from './paper-search-export/index.js';
export * from './documents/steps-document.js';
export * from './workflow-types.js';
export * from './views/retrieve-or-generate-view.js';
export { hasErrorCode, OpenPawError } from './errors.js';
