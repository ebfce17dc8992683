import { DiscoverCandidates, SelectNextExpansion, VerifyEdge } from '@openpaw/contracts';
import { replayRun } from '@openpaw/saga';
import type { SagaDriver } from '../testing/saga-driver.js';
import { definition, ADA, XAV, YUL, ZED, BEA, START, ONE_SIDED, SHORT_PAGES, usage, edge, candidate, data, verified, refuted, discovered, selected, started, selecting, decisions } from './testing/given.js';

describe('visual_degrees (spec 03): meeting in the middle', () => {
  describe('meeting in the middle (spec 03 frontier strategy, the default)', () => {
    it('is the default; a dead end on A\'s side lets B\'s side carry on, and only both exhausted end the run', () => {
      const d = selecting([candidate(XAV, 95)]);
      expect(data(d).strategy).toBe('meet_in_the_middle');
      selected(d, [XAV]);
      // A ↔ X cannot be verified, and A has no other candidate: B's side carries on.
      let s = refuted(d, ADA, XAV);
      expect(s.state).toBe('DISCOVERING');
      expect(s.sent(DiscoverCandidates)).toEqual([expect.objectContaining({ frontier: { name: BEA.name } })]);
      expect(decisions(d, 'side_exhausted')).toEqual([expect.objectContaining({ side: 'from', frontier: BEA.name })]);
      s = discovered(d, BEA, [candidate(YUL, 92, 1, BEA)]);
      selected(d, [YUL]);
      s = verified(d, edge(BEA, YUL), usage(0, 0, true));
      // B's chain grows; it bridges to A.
      expect(s.sent(VerifyEdge)).toEqual([expect.objectContaining({ from: YUL, to: ADA })]);
      s = refuted(d, YUL, ADA);
      // A's side is exhausted: B's side keeps growing, from Y.
      expect(s.sent(DiscoverCandidates)).toEqual([expect.objectContaining({ frontier: YUL })]);
      s = discovered(d, YUL, [], SHORT_PAGES);
      // Y is a dead end: back to B, whose candidates are tried.
      expect(s.sent(DiscoverCandidates)).toEqual([expect.objectContaining({ frontier: BEA })]);
      s = discovered(d, BEA, [], SHORT_PAGES);
      expect(s.state).toBe('FAILED');
      expect(data(d).failure).toMatchObject({ reason: 'no_candidates' });
    });

    it('grows a chain from B when the one from A does not reach it, and bridges the two ends; the path reads from A to B', () => {
      const d = selecting([candidate(XAV, 95)], { ...START, options: { strategy: 'meet_in_the_middle' } });
      selected(d, [XAV]);
      verified(d, edge(ADA, XAV, [[98, 93]]), usage(0, 0, true));
      // X ↔ B refuted: the chain from B is shorter now, so B is expanded next.
      let s = refuted(d, XAV, { name: BEA.name });
      expect(s.state).toBe('DISCOVERING');
      // Nothing on A's chain is excluded: seen beside B, X or A itself would close the chain there. The
      // latest direct attempt that named B (the bridge from X) is read again as a discovery query.
      expect(s.sent(DiscoverCandidates)).toEqual([expect.objectContaining({ frontier: { name: BEA.name }, exclude: [], queries: ['Xavier Reed Bea North', 'Bea North with celebrities'] })]);
      s = discovered(d, BEA, [candidate(YUL, 90, 1, BEA)]);
      // S3 aims at the other chain's end, X.
      expect(s.sent(SelectNextExpansion)).toEqual([expect.objectContaining({ target: XAV, frontier: BEA, candidates: [{ person: YUL, count: 1, bestConfWithFrontier: 90 }] })]);
      s = selected(d, [YUL]);
      expect(s.sent(VerifyEdge)).toEqual([expect.objectContaining({ from: BEA, to: YUL })]);
      s = verified(d, edge(BEA, YUL, [[96, 90]]), usage(0, 0, true));
      expect(s.sent(VerifyEdge)).toEqual([expect.objectContaining({ from: YUL, to: XAV, queries: ['Yuliya Park Xavier Reed'] })]);
      s = verified(d, edge(YUL, XAV, [[85, 97]]));
      expect(s.state).toBe('SUCCEEDED');
      const result = (s.view() as { result: { path: string[]; edges: { from: string; to: string; edgeConf: number; evidence: { confidenceFrom: number; confidenceTo: number }[] }[] } }).result;
      expect(result.path).toEqual(['Ada Stone', 'Xavier Reed', 'Yuliya Park', 'Bea North']);
      expect(result.edges.map((e) => [e.from, e.to, e.edgeConf])).toEqual([
        ['Ada Stone', 'Xavier Reed', 93],
        ['Xavier Reed', 'Yuliya Park', 85],
        ['Yuliya Park', 'Bea North', 90],
      ]);
      // Edges found from B's side are read forwards: their confidences swap with their ends.
      expect(result.edges[1]?.evidence[0]).toMatchObject({ confidenceFrom: 97, confidenceTo: 85 });
      expect(result.edges[2]?.evidence[0]).toMatchObject({ confidenceFrom: 90, confidenceTo: 96 });
      expect(replayRun(definition, { id: d.runId, idempotencyKey: 'key-1', userId: 'user-1', parentRunId: null }, d.logs)).toEqual({ ok: true, finalState: 'SUCCEEDED', mismatches: [] });
    });
  });

  describe('meeting in the middle from what discovery saw (no graph read)', () => {
    /** A ↔ X verified and X ↔ B refuted; B's side discovered [Zed, Yuliya], took Zed, and Zed ↔ X was refuted. */
    function bothSidesGrown(): SagaDriver {
      const d = selecting([candidate(XAV, 95)]);
      selected(d, [XAV]);
      verified(d, edge(ADA, XAV), usage(0, 0, true));
      refuted(d, XAV, { name: BEA.name });
      discovered(d, BEA, [candidate(ZED, 95, 3, BEA), candidate(YUL, 85, 1, BEA)]);
      selected(d, [ZED], { decidedBy: 'fallback', fallbackReason: 'no_llm_budget', usage: { llmCalls: 0, costUsd: 0 } });
      verified(d, edge(BEA, ZED), usage(0, 0, true));
      const s = refuted(d, ZED, XAV);
      expect(s.sent(DiscoverCandidates)).toEqual([expect.objectContaining({ frontier: XAV })]);
      return d;
    }

    it('tries first the candidate the other side saw beside its chain, verifies it, then bridges to where it was seen: a 3-hop chain', () => {
      const d = bothSidesGrown();
      // From X: Quinn is the fallback ranking's best, but B's side saw Yuliya beside B.
      const QUI = { name: 'Quinn Hale', celebrityId: 'c-qui' };
      let s = discovered(d, XAV, [candidate(QUI, 99, 4, XAV), candidate(YUL, 88, 1, XAV)]);
      expect(s.sent(SelectNextExpansion)).toEqual([expect.objectContaining({ frontier: XAV, candidates: [expect.objectContaining({ person: YUL }), expect.objectContaining({ person: QUI })] })]);
      expect(decisions(d, 'candidates').at(-1)).toMatchObject({ meets: { kind: 'seen_beside', at: 0 } });
      // The service's fallback answers Quinn; the meeting wins.
      s = selected(d, [QUI], { decidedBy: 'fallback', fallbackReason: 'no_llm_budget', usage: { llmCalls: 0, costUsd: 0 } });
      expect(s.sent(VerifyEdge)).toEqual([expect.objectContaining({ from: XAV, to: YUL })]);
      expect(decisions(d, 'expansion').at(-1)).toMatchObject({ decided_by: 'meeting', candidate: YUL.name });
      s = verified(d, edge(XAV, YUL));
      // B's chain is cut back to B (Zed leaves it): the bridge goes to where Yuliya was seen.
      expect(data(d).reversePath).toEqual([BEA]);
      expect(s.sent(VerifyEdge)).toEqual([expect.objectContaining({ from: YUL, to: BEA })]);
      s = verified(d, edge(YUL, BEA));
      expect(s.state).toBe('SUCCEEDED');
      expect((s.view() as { result: { path: string[] } }).result.path).toEqual([ADA.name, XAV.name, YUL.name, BEA.name]);
    });

    it('closes the chain at the other chain\'s node nearest its root when discovery sees it: shorter than its end', () => {
      const d = bothSidesGrown();
      // From X both B (the other root) and Zed (the other chain's end) are seen: B closes a 2-hop chain.
      let s = discovered(d, XAV, [candidate(ZED, 99, 4, XAV), candidate(BEA, 86, 1, XAV)]);
      expect(s.sent(SelectNextExpansion)).toEqual([expect.objectContaining({ candidates: [expect.objectContaining({ person: BEA }), expect.objectContaining({ person: ZED })] })]);
      s = selected(d, [ZED]);
      expect(s.sent(VerifyEdge)).toEqual([expect.objectContaining({ from: XAV, to: BEA })]);
      expect(decisions(d, 'expansion').at(-1)).toMatchObject({ decided_by: 'target' });
      s = verified(d, edge(XAV, BEA));
      expect(s.state).toBe('SUCCEEDED');
      expect((s.view() as { result: { path: string[] } }).result.path).toEqual([ADA.name, XAV.name, BEA.name]);
    });

    describe('a refuted bridge whose photos show the chains meet before their ends (ADR 0022 rule 9)', () => {
      /** A ↔ X verified, X ↔ B refuted; B's side took Zed (B ↔ Zed verified): Zed ↔ X is the bridge in flight. */
      function bridgingZedToXavier(): SagaDriver {
        const d = selecting([candidate(XAV, 95)]);
        selected(d, [XAV]);
        verified(d, edge(ADA, XAV), usage(0, 0, true));
        refuted(d, XAV, { name: BEA.name });
        discovered(d, BEA, [candidate(ZED, 95, 1, BEA)]);
        selected(d, [ZED]);
        const s = verified(d, edge(BEA, ZED), usage(0, 0, true));
        expect(s.sent(VerifyEdge)).toEqual([expect.objectContaining({ from: ZED, to: XAV, queries: ['Zed Moss Xavier Reed'] })]);
        return d;
      }
      const bridgePhoto = (confidenceFrom: number | null, confidenceTo: number | null, shows: string[]) => ({ imageUrl: `https://img.example/${shows.join('-')}.jpg`, query: 'Zed Moss Xavier Reed', confidenceFrom, confidenceTo, shows });

      it('Zed seen beside A: S2 from A with the bridge\'s own search (no new search), A\'s chain cut back; Zed closes a 2-hop chain', () => {
        const d = bridgingZedToXavier();
        let s = refuted(d, ZED, XAV, usage(1, 5), { partialEvidence: [bridgePhoto(null, 96, [XAV.celebrityId, ADA.celebrityId]), bridgePhoto(93, null, [ZED.celebrityId, ADA.celebrityId])] });
        expect(s.state).toBe('DISCOVERING');
        expect(s.sent(DiscoverCandidates)).toEqual([expect.objectContaining({ frontier: ADA, queries: ['Zed Moss Xavier Reed'] })]);
        expect(data(d).path).toEqual([ADA]);
        expect(decisions(d, 'bridge_meeting')).toEqual([expect.objectContaining({ side: 'from', frontier: ADA.name })]);
        expect(data(d).events.filter((e) => e.type === 'status').map((e) => (e.data as { message: string }).message)).toContain('A photo of that search showed Zed Moss beside Ada Stone; searching from Ada Stone…');
        // The service reads the bridge's photos again: Zed beside A at the threshold, on B's chain.
        s = discovered(d, ADA, [candidate(ZED, 93, 1, ADA)], usage(0, 0));
        s = selected(d, [ZED], { decidedBy: 'fallback', fallbackReason: 'no_llm_configured', usage: { llmCalls: 0, costUsd: 0 } });
        expect(s.sent(VerifyEdge)).toEqual([expect.objectContaining({ from: ADA, to: ZED })]);
        s = verified(d, edge(ADA, ZED), usage(0, 0, true));
        expect(s.state).toBe('SUCCEEDED');
        expect((s.view() as { result: { path: string[] } }).result.path).toEqual([ADA.name, ZED.name, BEA.name]);
      });

      it('X seen beside B: S2 from B, B\'s chain cut back to it (Zed leaves it)', () => {
        const d = bridgingZedToXavier();
        const s = refuted(d, ZED, XAV, usage(1, 5), { partialEvidence: [bridgePhoto(null, 88, [XAV.celebrityId, BEA.celebrityId])] });
        expect(s.sent(DiscoverCandidates)).toEqual([expect.objectContaining({ frontier: BEA, queries: ['Zed Moss Xavier Reed'] })]);
        expect(data(d).reversePath).toEqual([BEA]);
        expect(data(d).side).toBe('to');
      });

      it('a bridge end below the threshold, or beside nobody of the other chain, changes nothing: the shorter side is discovered as before', () => {
        const d = bridgingZedToXavier();
        const s = refuted(d, ZED, XAV, usage(1, 5), { partialEvidence: [bridgePhoto(62, null, [ZED.celebrityId, ADA.celebrityId]), bridgePhoto(null, 97, [XAV.celebrityId, YUL.celebrityId])] });
        expect(s.sent(DiscoverCandidates)).toEqual([expect.objectContaining({ frontier: XAV, queries: ['Zed Moss Xavier Reed', 'Xavier Reed with celebrities'] })]);
        expect(decisions(d, 'bridge_meeting')).toEqual([]);
      });
    });

    it('one-sided, nothing is remembered and the fallback ranking decides as before', () => {
      const d = selecting([candidate(XAV, 95, 2), candidate(ZED, 90, 1)], ONE_SIDED);
      expect(data(d).sightings).toEqual({ from: {}, to: {} });
      const s = selected(d, [ZED], { decidedBy: 'fallback', fallbackReason: 'no_llm_budget', usage: { llmCalls: 0, costUsd: 0 } });
      expect(s.sent(VerifyEdge)).toEqual([expect.objectContaining({ to: ZED })]);
    });
  });

  describe('S2 → S3 → S4: the target seen beside the frontier in discovery', () => {
    it('is never excluded, is what S3 picks, and S4 verifies it from the discovery evidence: the chain ends at B', () => {
      const d = started(ONE_SIDED);
      refuted(d, { name: ADA.name }, BEA);
      discovered(d, ADA, [candidate(XAV, 95, 2)]);
      selected(d, [XAV]);
      verified(d, edge(ADA, XAV), usage(0, 0, true));
      let s = refuted(d, XAV, { name: BEA.name });
      // B, known by name only, is not excluded (and could not be by id yet).
      expect(s.sent(DiscoverCandidates)).toEqual([expect.objectContaining({ frontier: XAV, exclude: ['c-ada', 'c-xav'] })]);
      // The service reports B beside X (it could: B is not excluded), in a reply where B is not the best by confidence.
      s = discovered(d, XAV, [candidate(YUL, 99, 3, XAV), candidate({ name: 'bea  north', celebrityId: 'c-bea' }, 84, 1, XAV)]);
      expect(s.state).toBe('SELECTING');
      // Identified by the recogniser's id, offered first.
      expect(data(d).to).toEqual({ name: BEA.name, celebrityId: 'c-bea' });
      expect(s.sent(SelectNextExpansion)).toEqual([
        expect.objectContaining({
          target: { name: BEA.name, celebrityId: 'c-bea' },
          candidates: [
            { person: { name: 'bea  north', celebrityId: 'c-bea' }, count: 1, bestConfWithFrontier: 84 },
            { person: YUL, count: 3, bestConfWithFrontier: 99 },
          ],
        }),
      ]);
      // S3 picks the target whatever the reply proposes.
      s = selected(d, [YUL]);
      expect(s.state).toBe('VERIFYING');
      expect(s.sent(VerifyEdge)).toEqual([expect.objectContaining({ from: XAV, to: { name: 'bea  north', celebrityId: 'c-bea' } })]);
      expect(decisions(d, 'expansion').at(-1)).toMatchObject({ decided_by: 'target', candidate: 'bea  north' });
      // S4: the service answers from the discovery's evidence, at no new call; the chain is whole.
      s = verified(d, edge(XAV, BEA, [[95, 84]]), usage(0, 0, true));
      expect(s.state).toBe('SUCCEEDED');
      // 1 (direct) + 3 (discovery) + 0 + 1 (bridge) + 3 (discovery) + 0 (S4 from the discovery evidence).
      expect(s.view()).toMatchObject({ path: ['Ada Stone', 'Xavier Reed', 'Bea North'], hop_depth: 2, used: { searchCalls: 8, recognitionCalls: 40 } });
      expect(replayRun(definition, { id: d.runId, idempotencyKey: 'key-1', userId: 'user-1', parentRunId: null }, d.logs)).toEqual({ ok: true, finalState: 'SUCCEEDED', mismatches: [] });
    });

    it('meeting in the middle, the other chain\'s end seen from this side closes the chain the same way', () => {
      const d = selecting([candidate(XAV, 95)], { ...START, options: { strategy: 'meet_in_the_middle' } });
      selected(d, [XAV]);
      verified(d, edge(ADA, XAV, [[98, 93]]), usage(0, 0, true));
      refuted(d, XAV, { name: BEA.name });
      // From B, X is seen: X is B's side's target.
      let s = discovered(d, BEA, [candidate(YUL, 99, 1, BEA), candidate(XAV, 90, 1, BEA)]);
      expect(s.sent(SelectNextExpansion)).toEqual([expect.objectContaining({ target: XAV, frontier: BEA, candidates: [{ person: XAV, count: 1, bestConfWithFrontier: 90 }, { person: YUL, count: 1, bestConfWithFrontier: 99 }] })]);
      s = selected(d, [XAV], { decidedBy: 'fallback', fallbackReason: 'target_found', usage: { llmCalls: 0, costUsd: 0 } });
      expect(s.sent(VerifyEdge)).toEqual([expect.objectContaining({ from: BEA, to: XAV })]);
      s = verified(d, edge(BEA, XAV, [[96, 90]]), usage(0, 0, true));
      expect(s.state).toBe('SUCCEEDED');
      const result = (s.view() as { result: { path: string[]; edges: { from: string; to: string; edgeConf: number }[] } }).result;
      expect(result.path).toEqual(['Ada Stone', 'Xavier Reed', 'Bea North']);
      expect(result.edges.map((e) => [e.from, e.to, e.edgeConf])).toEqual([
        ['Ada Stone', 'Xavier Reed', 93],
        ['Xavier Reed', 'Bea North', 90],
      ]);
    });
  });
});
