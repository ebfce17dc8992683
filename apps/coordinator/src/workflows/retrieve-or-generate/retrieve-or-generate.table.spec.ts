import { AssetVersionCreated, DocumentIndexed, MediaNormalized, MediaRejected, NormalizeMedia, ProblemRegistered, RetrievalHit, RetrievalMiss } from '@openpaw/contracts';
import { commandIdFor, isAllowed, SagaRegistry, validateDefinition } from '@openpaw/saga';
import { createWorkflowDefinitions } from '../index.js';
import { REINDEX_ASSET, SOLVE_WORKFLOW, VIDEO_WORKFLOW } from '../shared/workflow-types.js';
import { definition, ingesting } from './testing/given.js';
import { RETRIEVE_OR_GENERATE_STATES, RETRIEVE_OR_GENERATE_TRANSITIONS, SPEC_TRANSITIONS } from './retrieve-or-generate.definition.js';

describe('retrieve_or_generate', () => {
  describe('the transition table', () => {
    it("is the spec's TRANSITIONS, verbatim", () => {
      expect(SPEC_TRANSITIONS).toEqual({
        INITIATED: ['INGESTING', 'CANCELLED'],
        INGESTING: ['RETRIEVING', 'FAILED', 'CANCELLED'],
        RETRIEVING: ['SUCCEEDED', 'GENERATING_SOLUTION', 'FAILED', 'CANCELLED'],
        GENERATING_SOLUTION: ['REGISTERING', 'FAILED', 'CANCELLED'],
        REGISTERING: ['INDEXING', 'FAILED'],
        INDEXING: ['SUCCEEDED', 'FAILED'],
      });
    });

    it('enforces exactly that table plus the near-miss edge GENERATING_SOLUTION -> SUCCEEDED and the reading confirmation (issue 25)', () => {
      // The table the engine enforces is derived from the definition's rows: it must be the spec's (+ near-miss).
      const sorted = (table: Readonly<Partial<Record<string, readonly string[]>>>) =>
        Object.fromEntries(Object.entries(table).map(([state, targets]) => [state, [...(targets ?? [])].sort()]));
      expect(sorted(definition.transitions)).toEqual(sorted(RETRIEVE_OR_GENERATE_TRANSITIONS));
      expect(RETRIEVE_OR_GENERATE_TRANSITIONS).toEqual({
        ...SPEC_TRANSITIONS,
        INGESTING: ['RETRIEVING', 'FAILED', 'CANCELLED', 'AWAITING_READING_CONFIRMATION'],
        AWAITING_READING_CONFIRMATION: ['INGESTING', 'FAILED', 'CANCELLED'],
        GENERATING_SOLUTION: ['REGISTERING', 'FAILED', 'CANCELLED', 'SUCCEEDED'],
      });
    });

    const expected: Record<string, readonly string[]> = { ...RETRIEVE_OR_GENERATE_TRANSITIONS };
    const pairs = RETRIEVE_OR_GENERATE_STATES.flatMap((from) => RETRIEVE_OR_GENERATE_STATES.map((to) => [from, to] as const));
    it.each(pairs)('%s -> %s is allowed exactly when the table lists it', (from, to) => {
      expect(isAllowed(definition, from, to)).toBe(expected[from]?.includes(to) ?? false);
    });

    it('has SUCCEEDED, FAILED and CANCELLED terminal, cancels to CANCELLED, re-attempts from FAILED and CANCELLED, and validates', () => {
      expect(definition.terminal).toEqual(['SUCCEEDED', 'FAILED', 'CANCELLED']);
      expect(definition.cancelledState).toBe('CANCELLED');
      expect(definition.retryableFrom).toEqual(['FAILED', 'CANCELLED']);
      expect(() => validateDefinition(definition)).not.toThrow();
    });

    it('registers with its three companions in one registry, which routes every reply it waits for', () => {
      const registry = new SagaRegistry(createWorkflowDefinitions());
      expect(registry.all().map((d) => d.type)).toEqual(['retrieve_or_generate', SOLVE_WORKFLOW, VIDEO_WORKFLOW, REINDEX_ASSET]);
      for (const event of [MediaNormalized, MediaRejected, RetrievalHit, RetrievalMiss, ProblemRegistered, AssetVersionCreated, DocumentIndexed]) {
        expect(registry.consumes('retrieve_or_generate', event.subject)).toBe(true);
      }
    });
  });
  describe('ids shared with the engine', () => {
    it("a step's command id is the id the engine gave the command", () => {
      const d = ingesting();
      expect(d.commandId(NormalizeMedia)).toBe(commandIdFor(d.runId, 1, 'ingest:1'));
    });
  });
});
