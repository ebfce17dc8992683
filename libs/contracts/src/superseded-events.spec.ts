import { z } from 'zod';
import { catalog, definitionForSubject } from './catalog.js';
import { defineEvent } from './message-definition.js';
import { RetrievalHit, RetrievalHitV1, RetrievalMiss, RetrievalMissV1 } from './messages/retrieval.js';

describe('a superseded event version', () => {
  it('names its successor, and the successor is in the catalog', () => {
    expect(RetrievalHitV1.supersededBy).toBe(RetrievalHit.subject);
    expect(RetrievalMissV1.supersededBy).toBe(RetrievalMiss.subject);
    for (const definition of catalog.filter((d) => d.supersededBy !== undefined)) {
      expect(definitionForSubject(definition.supersededBy ?? '')).toBeDefined();
    }
  });

  it('must be superseded by a later version of the same event', () => {
    const v2 = defineEvent('demo', 'Happened', 2, z.object({}), 'v2');
    expect(() => defineEvent('demo', 'Happened', 1, z.object({}), 'v1', { supersededBy: v2 })).not.toThrow();
    expect(() => defineEvent('demo', 'Happened', 3, z.object({}), 'v3', { supersededBy: v2 })).toThrow(/later version of the same event/);
    expect(() => defineEvent('demo', 'Other', 1, z.object({}), 'other', { supersededBy: v2 })).toThrow(/later version of the same event/);
  });

  it('keeps the v1 vocabulary: v1 refuses a method only v2 has', () => {
    const candidate = { assetVersionId: '0b0b1b6e-3b0c-4c5e-8f5e-7b0c2d1e0f00', problemId: '0b0b1b6e-3b0c-4c5e-8f5e-7b0c2d1e0f01', confidence: 0.97 };
    const data = (method: string) => ({ runId: candidate.problemId, commandId: 'c', candidate: { ...candidate, method }, trace: [] });
    expect(RetrievalHit.schema.safeParse(data('maths_signature')).success).toBe(true);
    expect(RetrievalHitV1.schema.safeParse(data('maths_signature')).success).toBe(false);
    expect(RetrievalHitV1.schema.safeParse(data('text_exact')).success).toBe(true);
  });
});
