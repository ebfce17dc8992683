import { DiscoverCandidates, EdgeVerified, InputRefused, laneOf, SelectNextExpansion, VerifyEdge, visualDegreesRunView, visualDegreesView, VisualStepFailed, visualDegreesPartialEvidence } from '@openpaw/contracts';
import { z } from 'zod';
import { isAllowed, RUN_DEADLINE_TIMER, replayRun, validateDefinition } from '@openpaw/saga';
import { SagaDriver } from '../testing/saga-driver.js';
import { definition, ADA, XAV, YUL, ZED, BEA, START, ONE_SIDED, SHORT_PAGES, type Person, usage, edge, candidate, data, verified, refuted, discovered, selected, started, selecting, eventTypes, decisions } from './testing/given.js';
import { DEFAULT_VISUAL_DEGREES_TIMINGS, VISUAL_DEGREES_STATES, VISUAL_DEGREES_TRANSITIONS } from './visual-degrees.definition.js';

describe('visual_degrees (spec 03)', () => {
  describe('the transition table', () => {
    const expected: Record<string, readonly string[]> = { ...VISUAL_DEGREES_TRANSITIONS };
    it.each(VISUAL_DEGREES_STATES.flatMap((from) => VISUAL_DEGREES_STATES.map((to) => [from, to] as const)))('%s -> %s is allowed exactly when the table lists it', (from, to) => {
      expect(isAllowed(definition, from, to)).toBe(expected[from]?.includes(to) ?? false);
    });

    it("is the spec's S0–S7, derived from the rows, and validates", () => {
      expect(definition.transitions).toEqual(VISUAL_DEGREES_TRANSITIONS);
      expect(definition.terminal).toEqual(['SUCCEEDED', 'FAILED', 'CANCELLED']);
      expect(() => validateDefinition(definition)).not.toThrow();
    });

    it('its commands are on the visual lane, never on the critical one', () => {
      expect([VerifyEdge, DiscoverCandidates, SelectNextExpansion].map(laneOf)).toEqual(['visual', 'visual', 'visual']);
    });
  });

  describe('only public figures', () => {
    it('when the photos of A\'s own discovery never show A, then S7 `not_a_public_figure`: nothing more is searched, for A or B', () => {
      const d = started();
      refuted(d, { name: ADA.name }, { name: BEA.name });
      const s = discovered(d, { name: ADA.name } as Person, [], usage(2, 9));
      expect(s.state).toBe('FAILED');
      expect(s.sent(DiscoverCandidates)).toEqual([]);
      expect(data(d).failure).toMatchObject({ reason: 'not_a_public_figure' });
      expect(data(d).events.at(-1)).toMatchObject({
        type: 'no_path',
        data: { reason: 'not_a_public_figure', message: '"Ada Stone" was not recognised as a public figure in any of the 9 photos found for them; visual degrees connects public figures only (people the celebrity recogniser knows).' },
      });
    });

    it('when no photo could be read, then that is not known: B\'s side carries on', () => {
      const d = started();
      refuted(d, { name: ADA.name }, { name: BEA.name });
      const s = discovered(d, { name: ADA.name } as Person, [], usage(2, 0));
      expect(s.state).toBe('DISCOVERING');
      expect(s.sent(DiscoverCandidates)).toEqual([expect.objectContaining({ frontier: { name: BEA.name } })]);
    });

    it("one-sided, when B's own discovery never shows B, then S7 `not_a_public_figure` before any chain is grown from A", () => {
      const d = started(ONE_SIDED);
      let s = refuted(d, { name: ADA.name }, { name: BEA.name });
      // No chain grows from B one-sided: B is discovered once, only to check that B is a public figure.
      expect(s.sent(DiscoverCandidates)).toEqual([expect.objectContaining({ frontier: { name: BEA.name }, queries: ['Ada Stone Bea North', 'Bea North with celebrities'] })]);
      s = discovered(d, { name: BEA.name } as Person, [candidate(XAV, 95, 1, { name: 'Somebody Else', celebrityId: 'c-else' })], usage(1, 8));
      expect(s.state).toBe('FAILED');
      expect(s.sent(DiscoverCandidates)).toEqual([]);
      expect(data(d).events.at(-1)).toMatchObject({ type: 'no_path', data: { reason: 'not_a_public_figure', message: expect.stringContaining('"Bea North" was not recognised as a public figure in any of the 8 photos') } });
    });

    it('one-sided, when B is recognised (in its discovery, or already in the direct attempt\'s photos), then the chain grows from A as before', () => {
      const d = started(ONE_SIDED);
      refuted(d, { name: ADA.name }, { name: BEA.name });
      const s = discovered(d, BEA, [candidate(YUL, 95, 1, BEA)], usage(1, 8));
      expect(s.state).toBe('DISCOVERING');
      expect(s.sent(DiscoverCandidates)).toEqual([expect.objectContaining({ frontier: { name: ADA.name } })]);
      expect(data(d).to).toEqual(BEA);
      expect(decisions(d, 'public_figure_checked')).toEqual([expect.objectContaining({ person: BEA.name, photos: 8 })]);
      // The direct attempt's photos showed B at the threshold: the reply names B's id, and no check is needed.
      const seen = started(ONE_SIDED);
      const next = refuted(seen, { name: ADA.name }, BEA);
      expect(next.sent(DiscoverCandidates)).toEqual([expect.objectContaining({ frontier: { name: ADA.name } })]);
    });

    it('in the local demo world (its roster refuses unknown names at S1), an unrecognised person is a missed photo: the search goes on', () => {
      const d = started();
      const world = { kind: 'local_demo' as const, seed: 7, people: 24, description: 'local demo world of 24 invented people' };
      refuted(d, { name: ADA.name }, { name: BEA.name }, usage(1, 5), { world });
      const s = discovered(d, { name: ADA.name } as Person, [], usage(2, 9), { world });
      expect(s.state).toBe('DISCOVERING');
    });
  });

  describe('S0 → S1: given a request', () => {
    it('when started, then names are normalised, the direct edge is asked for first, the runtime budget is the deadline', () => {
      const d = new SagaDriver(definition);
      const s = d.start({ from: '  Ada   Stone ', to: 'Bea North', options: { maxSearchCalls: 12 } });
      expect(s.state).toBe('DIRECT_EDGE');
      expect(s.sent(VerifyEdge)).toEqual([
        {
          sessionId: 'user-1',
          runId: d.runId,
          step: 1,
          from: { name: 'Ada Stone' },
          to: { name: 'Bea North' },
          queries: ['Ada Stone Bea North'],
          imagesPerQuery: 5,
          threshold: 80,
          budget: { searchCalls: 12, recognitionCalls: 120 },
        },
      ]);
      expect(d.delayOf(RUN_DEADLINE_TIMER)).toBe(300_000);
      expect(d.delayOf('resend:direct:1:1')).toBe(DEFAULT_VISUAL_DEGREES_TIMINGS.stepTimeoutMs);
      expect(eventTypes(d)).toEqual(['status', 'status']);
      expect(decisions(d, 'initialized')).toEqual([
        expect.objectContaining({ hop_limit: 6, threshold: 80, images_per_query: 5, budgets: { maxSearchCalls: 12, maxRecognitionCalls: 120, maxLlmCalls: 8, maxRuntimeMs: 300_000 } }),
      ]);
    });

    it.each([
      ['no target', { from: 'Ada Stone' }],
      ['a blank name', { from: '   ', to: 'Bea North' }],
      ['more than 6 hops', { ...START, options: { maxHops: 7 } }],
      ['an unknown option', { ...START, options: { depth: 3 } }],
      ['the same person at both ends', { from: 'Ada Stone', to: '  ada  STONE ' }],
    ])('when started with %s, then refused', (_, input) => {
      expect(new SagaDriver(definition).start(input).sent(InputRefused)).toEqual([expect.objectContaining({ reason: 'invalid_input' })]);
    });
  });

  describe('S1: given the direct attempt', () => {
    it('when one image shows both at ≥ 80 %, then S6 with the one-edge path', () => {
      const d = started();
      const s = verified(d, edge(ADA, BEA, [[99, 84], [90, 88]]));
      expect(s.state).toBe('SUCCEEDED');
      expect(eventTypes(d)).toEqual(['status', 'status', 'evidence', 'path_update', 'final']);
      expect(s.view()).toMatchObject({ status: 'succeeded', path: ['Ada Stone', 'Bea North'], hop_depth: 1, result: { path: ['Ada Stone', 'Bea North'], confidenceMap: { bottleneck: 88, cumulative: 0.88 } } });
    });

    it("writes the contract's view, running or ended, and the gateway reads it unchanged", () => {
      const running = new SagaDriver(definition).start(START).view();
      expect(running).toMatchObject({ status: 'running' });
      const ended = verified(started(), edge(ADA, BEA, [[99, 84], [90, 88]])).view();
      const declared = z.strictObject(visualDegreesView.shape);
      for (const view of [running, ended]) {
        expect(declared.parse(view)).toEqual(view);
        expect(visualDegreesRunView.parse(view)).toEqual(view);
      }
    });

    it("when refuted, then S2 from A: the direct attempt's search (already run, so free) and one new query", () => {
      const d = started();
      const s = refuted(d, { name: ADA.name }, { name: BEA.name });
      expect(s.state).toBe('DISCOVERING');
      expect(s.sent(DiscoverCandidates)).toEqual([
        expect.objectContaining({ step: 2, frontier: { name: ADA.name }, queries: ['Ada Stone Bea North', 'Ada Stone with celebrities'], exclude: [], budget: { searchCalls: 19, recognitionCalls: 115 } }),
      ]);
    });

    it('when refuted with photos of one side only, then an `evidence` event marked partial shows the strongest, in the contract’s shape', () => {
      const d = started();
      const photo = (url: string, confidenceFrom: number | null, confidenceTo: number | null) => ({ imageUrl: url, sourcePageUrl: `${url}/page`, query: 'Ada Stone Bea North', confidenceFrom, confidenceTo });
      const partialEvidence = [photo('https://img/1', 91, null), photo('https://img/2', 60, 70), photo('https://img/3', null, 97)];
      const s = refuted(d, { name: ADA.name }, { name: BEA.name }, usage(1, 5), { partialEvidence });
      expect(s.state).toBe('DISCOVERING');
      expect(eventTypes(d).filter((type) => type === 'evidence')).toHaveLength(1);
      const events = (s.view() as { events: { type: string; data: unknown }[] }).events;
      const card = events.find((event) => event.type === 'evidence')?.data;
      expect(card).toEqual({ partial: true, from: 'Ada Stone', to: 'Bea North', imageUrl: 'https://img/3', sourcePageUrl: 'https://img/3/page', confidenceFrom: null, confidenceTo: 97, images: 3 });
      expect(visualDegreesPartialEvidence.parse(card)).toEqual(card);
      // No photo of either: no evidence event.
      const none = started();
      refuted(none, { name: ADA.name }, { name: BEA.name });
      expect(eventTypes(none)).not.toContain('evidence');
    });

    it('when a reply answers an earlier step, then it is ignored', () => {
      const d = started();
      refuted(d, { name: ADA.name }, { name: BEA.name });
      expect(d.event(EdgeVerified, { runId: d.runId, commandId: d.commandId(VerifyEdge), step: 1, edge: edge(ADA, BEA), usage: usage(0, 0) }).outcome).toBe('ignored');
      expect(d.s.run.state).toBe('DISCOVERING');
    });
  });

  describe('a 3-hop chain A → X → Y → B', () => {
    it('is found within the hop limit: every decision logged, evidence streamed, confidence from the evidence, replayable', () => {
      const d = selecting(undefined, ONE_SIDED);
      expect(d.s.run.state).toBe('SELECTING');
      expect(d.s.run.data).toMatchObject({ from: ADA, path: [ADA] });
      expect(d.commandCount(SelectNextExpansion)).toBe(1);

      let s = selected(d, [XAV]);
      expect(s.state).toBe('VERIFYING');
      // The LLM's queries are run (strict JSON, validated by the service).
      expect(s.sent(VerifyEdge)).toEqual([expect.objectContaining({ from: ADA, to: XAV, queries: ['Xavier Reed backstage'], pathSoFar: [ADA] })]);

      s = verified(d, edge(ADA, XAV, [[98, 93]]), usage(0, 0, true));
      expect(s.state).toBe('BRIDGING');
      expect(s.sent(VerifyEdge)).toEqual([expect.objectContaining({ from: XAV, to: BEA, queries: ['Xavier Reed Bea North'], pathSoFar: [ADA, XAV] })]);

      s = refuted(d, XAV, { name: BEA.name });
      expect(s.state).toBe('DISCOVERING');
      // S5's search X ↔ B stands in for one discovery query from X: read again, it costs no search.
      expect(s.sent(DiscoverCandidates)).toEqual([expect.objectContaining({ frontier: XAV, exclude: ['c-ada', 'c-xav'], queries: ['Xavier Reed Bea North', 'Xavier Reed with celebrities'] })]);

      s = discovered(d, XAV, [candidate(YUL, 92, 1, XAV)]);
      expect(s.state).toBe('SELECTING');
      expect(s.sent(SelectNextExpansion)).toEqual([expect.objectContaining({ frontier: XAV, hopsRemaining: 5, candidates: [{ person: YUL, count: 1, bestConfWithFrontier: 92 }] })]);

      selected(d, [YUL]);
      verified(d, edge(XAV, YUL, [[90, 85], [88, 96]]), usage(0, 0, true));
      s = verified(d, edge(YUL, BEA, [[94, 99]]));
      expect(s.state).toBe('SUCCEEDED');

      const view = s.view() as { result: { path: string[]; confidenceMap: { edges: Record<string, number>; bottleneck: number; cumulative: number }; graph: { nodes: unknown[] } }; used: Record<string, number> };
      expect(view.result.path).toEqual(['Ada Stone', 'Xavier Reed', 'Yuliya Park', 'Bea North']);
      expect(view.result.confidenceMap.edges).toEqual({ 'c-ada->c-xav': 93, 'c-xav->c-yul': 88, 'c-yul->c-bea': 94 });
      expect(view.result.confidenceMap.bottleneck).toBe(88);
      expect(view.result.confidenceMap.cumulative).toBeCloseTo(0.93 * 0.88 * 0.94, 10);
      expect(view.result.graph.nodes).toEqual([
        { id: 'c-ada', name: 'Ada Stone' },
        { id: 'c-xav', name: 'Xavier Reed' },
        { id: 'c-yul', name: 'Yuliya Park' },
        { id: 'c-bea', name: 'Bea North' },
      ]);
      // Every reply's usage is charged: 1 + 3 + 0 + 1 + 3 + 0 + 1 searches; 2 LLM calls.
      expect(view.used).toMatchObject({ searchCalls: 9, recognitionCalls: 45, llmCalls: 2 });
      // `final` says what the run spent of its budgets.
      expect(data(d).events.find((e) => e.type === 'final')?.data).toMatchObject({
        budgets: { maxSearchCalls: 20, maxRecognitionCalls: 120, maxLlmCalls: 8 },
        used: { searchCalls: 9, recognitionCalls: 45, llmCalls: 2 },
      });
      expect(data(d).events.filter((e) => e.type === 'evidence').map((e) => e.data)).toEqual([
        expect.objectContaining({ from: 'Ada Stone', to: 'Xavier Reed', edgeConf: 93, confidenceFrom: 98, confidenceTo: 93, sourcePageUrl: 'https://news.example/c-ada-c-xav' }),
        // The best image is the one whose weaker face is strongest: (88, 96), not (90, 85).
        expect.objectContaining({ from: 'Xavier Reed', to: 'Yuliya Park', edgeConf: 88, confidenceFrom: 88, confidenceTo: 96, images: 2 }),
        expect.objectContaining({ from: 'Yuliya Park', to: 'Bea North', edgeConf: 94 }),
      ]);
      expect(data(d).events.map((e) => e.seq)).toEqual(data(d).events.map((_, i) => i + 1));
      expect(d.logs.filter((l) => l.stepName === 'decision').map((l) => l.payload['decision'])).toEqual([
        'initialized',
        'discover_from',
        'candidates',
        'expansion',
        'edge_accepted',
        'discover_from',
        'candidates',
        'expansion',
        'edge_accepted',
        'finalize_success',
      ]);
      expect(replayRun(definition, { id: d.runId, idempotencyKey: 'key-1', userId: 'user-1', parentRunId: null }, d.logs)).toEqual({ ok: true, finalState: 'SUCCEEDED', mismatches: [] });
    });
  });

  describe('S3: the LLM selection', () => {
    it('when the LLM answered invalid JSON, then the fallback chosen by the service is followed with the spec queries, and the log says why', () => {
      const d = selecting();
      const s = selected(d, [XAV], { decidedBy: 'fallback', fallbackReason: 'invalid_json', searchQueries: [], narration: '', usage: { llmCalls: 1, costUsd: 0 } });
      expect(s.state).toBe('VERIFYING');
      expect(s.sent(VerifyEdge)).toEqual([expect.objectContaining({ to: XAV, queries: ['Ada Stone Xavier Reed', 'Ada Stone Xavier Reed event'] })]);
      expect(decisions(d, 'expansion')).toEqual([expect.objectContaining({ decided_by: 'fallback', fallback_reason: 'invalid_json', candidate: 'Xavier Reed' })]);
      expect(data(d).events.at(-1)).toMatchObject({ type: 'status', data: { message: 'Trying an expansion via Xavier Reed…' } });
    });

    it('when the choice is not among the candidates, then the deterministic ranking decides: best confidence, then count', () => {
      const d = selecting([candidate(ZED, 90, 5), candidate(XAV, 93, 1), candidate(YUL, 93, 2)]);
      const s = selected(d, [BEA]);
      expect(s.sent(VerifyEdge)).toEqual([expect.objectContaining({ to: YUL, queries: ['Ada Stone Yuliya Park', 'Ada Stone Yuliya Park event'] })]);
      expect(decisions(d, 'expansion')).toEqual([expect.objectContaining({ decided_by: 'fallback', fallback_reason: 'invalid_choice', candidate: 'Yuliya Park' })]);
    });
  });

  describe('dedup of candidates', () => {
    it('keeps one entry per person (the best), never one on the path, in the fallback order', () => {
      const d = started(ONE_SIDED);
      refuted(d, { name: ADA.name }, BEA);
      discovered(d, ADA, [candidate(ZED, 85, 1), candidate(XAV, 88, 1), candidate(XAV, 95, 3)]);
      selected(d, [ZED]);
      verified(d, edge(ADA, ZED), usage(0, 0, true));
      refuted(d, ZED, { name: BEA.name });
      // Ada is on the path (a reply naming her would make a cycle).
      const s = discovered(d, ZED, [candidate(YUL, 82, 1, ZED), candidate(ADA, 99, 9, ZED), candidate(YUL, 90, 2, ZED), candidate(XAV, 90, 2, ZED)]);
      expect(s.sent(SelectNextExpansion)).toEqual([
        expect.objectContaining({
          candidates: [
            { person: XAV, count: 2, bestConfWithFrontier: 90 },
            { person: YUL, count: 2, bestConfWithFrontier: 90 },
          ],
        }),
      ]);
    });
  });

  describe('S4: an intermediate that cannot be verified', () => {
    it('when candidates remain, then back to S3 without it; when none, another frontier (one step back); from A with none left, S7 (one-sided)', () => {
      const d = selecting(undefined, ONE_SIDED);
      selected(d, [XAV]);
      let s = refuted(d, ADA, XAV);
      expect(s.state).toBe('SELECTING');
      expect(s.sent(SelectNextExpansion)).toEqual([expect.objectContaining({ candidates: [{ person: ZED, count: 1, bestConfWithFrontier: 90 }] })]);
      selected(d, [ZED]);
      verified(d, edge(ADA, ZED), usage(0, 0, true));
      refuted(d, ZED, { name: BEA.name });
      discovered(d, ZED, [candidate(YUL, 91, 1, ZED)]);
      selected(d, [YUL]);
      s = refuted(d, ZED, YUL);
      // Zed is a dead end: discovery goes back to Ada, Zed and Xavier excluded.
      expect(s.state).toBe('DISCOVERING');
      expect(s.sent(DiscoverCandidates)).toEqual([expect.objectContaining({ frontier: ADA, exclude: ['c-ada', 'c-zed', 'c-xav'] })]);
      expect(data(d).path).toEqual([ADA]);
      s = discovered(d, ADA, [candidate(ZED, 90), candidate(XAV, 95)], usage(0, 0));
      expect(s.state).toBe('FAILED');
      expect(data(d).failure).toMatchObject({ reason: 'no_candidates' });
    });
  });

  describe('S2: a frontier with nothing left to try', () => {
    it("when its photos filled every page, then it is searched with the spec's templates not yet run, one at a time, before the search steps back", () => {
      const d = started(ONE_SIDED);
      refuted(d, { name: ADA.name }, BEA);
      // Two queries, ten photos: the engine may hold more photos of Ada than its two pages showed.
      let s = discovered(d, ADA, [], { ...usage(1, 4), imagesSkipped: 6 });
      expect(s.state).toBe('DISCOVERING');
      expect(s.sent(DiscoverCandidates)).toEqual([expect.objectContaining({ frontier: ADA, queries: ['Ada Stone event'] })]);
      expect(decisions(d, 'discover_from').at(-1)).toMatchObject({ frontier: ADA.name, deeper: true });
      s = discovered(d, ADA, [], usage(1, 5));
      expect(s.sent(DiscoverCandidates)).toEqual([expect.objectContaining({ frontier: ADA, queries: ['Ada Stone awards'] })]);
      // The deeper page shows someone new: the search goes on through them.
      s = discovered(d, ADA, [candidate(XAV, 93)], usage(1, 5));
      expect(s.state).toBe('SELECTING');
      selected(d, [XAV]);
      refuted(d, ADA, XAV);
      // Every template searched: the frontier has nothing left, and from A that ends a one-sided run.
      expect(d.s.run.state).toBe('FAILED');
      expect(d.commandCount(DiscoverCandidates)).toBe(3);
    });

    it('when a page came back short, then the engine has no more photos of the frontier: no other template is searched', () => {
      const d = started(ONE_SIDED);
      refuted(d, { name: ADA.name }, BEA);
      const s = discovered(d, ADA, [], SHORT_PAGES);
      expect(s.state).toBe('FAILED');
      expect(data(d).failure).toMatchObject({ reason: 'no_candidates' });
      expect(d.commandCount(DiscoverCandidates)).toBe(1);
    });
  });

  describe('a step that fails', () => {
    it('when retryable, then retried after a backoff under a new id; when it keeps failing, then S7 with a sanitised error', () => {
      const d = started();
      const first = d.commandId(VerifyEdge);
      let s = d.reply(VerifyEdge, VisualStepFailed, { step: 1, command: 'VerifyEdge', errorCode: 'search_unavailable', retryable: true, detail: 'HTTP 503 from upstream', usage: usage(1, 0) });
      expect(s.state).toBe('DIRECT_EDGE');
      s = d.fire('retry:direct:1');
      expect(d.commandId(VerifyEdge)).not.toBe(first);
      // The retry carries what the budget allows after the failed try's usage (1 search of 20).
      expect(s.sent(VerifyEdge)).toEqual([expect.objectContaining({ step: 1, queries: ['Ada Stone Bea North'], budget: { searchCalls: 19, recognitionCalls: 120 } })]);
      s = d.fire('resend:direct:1:2');
      expect(s.state).toBe('DIRECT_EDGE');
      d.fire('retry:direct:1');
      s = d.reply(VerifyEdge, VisualStepFailed, { step: 1, command: 'VerifyEdge', errorCode: 'search_unavailable', retryable: true, detail: 'HTTP 503 from upstream', usage: usage(1, 0) });
      expect(s.state).toBe('FAILED');
      expect(data(d).events.at(-1)).toEqual(expect.objectContaining({ type: 'error', data: { code: 'step_failed', reason: 'search_unavailable', message: 'A search or recognition step failed; the investigation stopped.' } }));
      expect(JSON.stringify(data(d).events)).not.toContain('503');
      expect(data(d).used.searchCalls).toBe(2);
    });
  });

  it('is cancellable while it works', () => {
    const d = selecting();
    expect(d.cancel().state).toBe('CANCELLED');
  });
});
