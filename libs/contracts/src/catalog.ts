import type { AnyMessageDefinition } from './message-definition.js';
import * as artifacts from './messages/artifacts.js';
import * as assets from './messages/assets.js';
import * as ingestion from './messages/ingestion.js';
import * as paperSearch from './messages/paper-search.js';
import * as researchFlow from './messages/research-flow.js';
import * as researchKeys from './messages/research-keys.js';
import * as researchWebhook from './messages/research-webhook.js';
import * as retrieval from './messages/retrieval.js';
import * as runEnded from './messages/run-ended.js';
import * as solve from './messages/solve.js';
import * as visualSearch from './messages/visual-search.js';
import * as workflow from './messages/workflow.js';

/**
 * The one typed catalog: every message OpenPaw publishes. A module per bounded context under
 * `messages/`; add new modules here. JSON Schema and AsyncAPI under `contracts/` are generated from it.
 */
const modules: readonly Record<string, unknown>[] = [
  workflow,
  runEnded,
  ingestion,
  retrieval,
  solve,
  assets,
  artifacts,
  // Paper search (spec 04): the research service's skills and their replies.
  paperSearch,
  // Visual degrees (spec 03).
  visualSearch,
  // Research flow (spec 05).
  researchFlow,
  researchWebhook,
  researchKeys,
];

function isDefinition(value: unknown): value is AnyMessageDefinition {
  return typeof value === 'object' && value !== null && 'subject' in value && 'schema' in value && 'kind' in value;
}

export const catalog: readonly AnyMessageDefinition[] = modules
  .flatMap((m) => Object.values(m).filter(isDefinition))
  .sort((a, b) => a.subject.localeCompare(b.subject));

const bySubject = new Map<string, AnyMessageDefinition>();
for (const definition of catalog) {
  if (bySubject.has(definition.subject)) throw new Error(`duplicate message subject ${definition.subject}`);
  bySubject.set(definition.subject, definition);
}

export function definitionForSubject(subject: string): AnyMessageDefinition | undefined {
  return bySubject.get(subject);
}
