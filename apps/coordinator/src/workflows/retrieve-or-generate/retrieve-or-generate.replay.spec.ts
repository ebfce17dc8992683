import { MediaNormalized, NormalizeMedia, RetrievalHit, RetrievalMiss, SearchSolutions } from '@openpaw/contracts';
import { replayRun } from '@openpaw/saga';
import { SOLVE_WORKFLOW } from '../shared/workflow-types.js';
import { SagaDriver } from '../testing/saga-driver.js';
import { assetVersionCreated, candidate, definition, documentIndexed, ingesting, problemRegistered, retrieving, SIG, solvedView, START } from './testing/given.js';

describe('retrieve_or_generate', () => {
  describe('replay', () => {
    const identity = (d: SagaDriver) => ({ id: d.runId, idempotencyKey: 'key-1', userId: 'user-1', parentRunId: null });

    it('feeds a full miss path (a retry, the child, both registry events, a refused cancel, indexing) back through the definition', () => {
      const d = ingesting();
      d.fire('resend:ingest:1');
      d.fire('retry:ingest');
      d.reply(NormalizeMedia, MediaNormalized, { mediaType: 'text', signature: SIG });
      const [child] = SagaDriver.started(d.reply(SearchSolutions, RetrievalMiss, { topCandidate: candidate(0.5), trace: [] }));
      d.child(SOLVE_WORKFLOW, child?.runId ?? '', 'SUCCEEDED', solvedView);
      assetVersionCreated(d);
      d.cancel();
      problemRegistered(d);
      documentIndexed(d);
      documentIndexed(d);
      expect(d.s.run.state).toBe('SUCCEEDED');
      const report = replayRun(definition, identity(d), d.logs);
      expect(report).toEqual({ ok: true, finalState: 'SUCCEEDED', mismatches: [] });
    });

    it('replays a failed attempt and its re-attempt ending in a hit', () => {
      const d = retrieving();
      for (let retry = 1; retry <= 3; retry += 1) {
        d.fire(`resend:retrieve:${retry}`);
        d.fire('retry:retrieve');
      }
      d.fire('resend:retrieve:4');
      d.start(START);
      d.reply(NormalizeMedia, MediaNormalized, { mediaType: 'text', signature: SIG });
      d.reply(SearchSolutions, RetrievalHit, { candidate: candidate(0.97, 'near_duplicate'), trace: [] });
      const report = replayRun(definition, identity(d), d.logs);
      expect(report).toEqual({ ok: true, finalState: 'SUCCEEDED', mismatches: [] });
    });
  });
});
