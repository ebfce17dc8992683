import { DiscoverCandidates, EdgeVerified, ExpansionSelected, RunEnded, SelectNextExpansion, VerifyEdge, visualDegreesView, VisualPersonTakenDown } from '@openpaw/contracts';
import type { SagaDriver } from '../testing/saga-driver.js';
import { ADA, XAV, YUL, ZED, BEA, ONE_SIDED, START, usage, edge, candidate, data, verified, refuted, discovered, selected, selecting, started, decisions, frontierOf, step } from './testing/given.js';

describe('visual_degrees (spec 03): a finished run amended after a takedown', () => {
  describe('a person taken down after the run finished (an amendment: data only)', () => {
    /** The one-sided 3-hop run A → X → Y → B, succeeded. */
    function succeededThroughXavier(): SagaDriver {
      const d = selecting(undefined, ONE_SIDED);
      selected(d, [XAV]);
      verified(d, edge(ADA, XAV), usage(0, 0, true));
      refuted(d, XAV, { name: BEA.name });
      discovered(d, XAV, [candidate(YUL, 92, 1, XAV)]);
      selected(d, [YUL]);
      verified(d, edge(XAV, YUL), usage(0, 0, true));
      expect(verified(d, edge(YUL, BEA)).state).toBe('SUCCEEDED');
      return d;
    }
    const takenDown = (d: SagaDriver, celebrityId: string) =>
      d.when(d.s.event(VisualPersonTakenDown, { commandId: 'takedown-1', recognizer: 'local-world', celebrityId, cacheEntriesRemoved: 0, thumbnailsRemoved: 0, at: '2026-11-27T22:00:00.000Z' }));

    it('when a finished run names them, then it stays SUCCEEDED and its view is published redacted: "[removed]", no images of their edges', () => {
      const d = succeededThroughXavier();
      const version = d.s.run.version;
      const s = takenDown(d, XAV.celebrityId);
      expect(s.outcome).toBe('applied');
      expect(s.state).toBe('SUCCEEDED');
      expect(d.s.run.version).toBe(version + 1);
      const view = s.view() as { path: string[]; events: { type: string; data: Record<string, unknown> }[]; result: { path: string[]; edges: { from: string; to: string; evidence: { imageUrl: string; sourcePageUrl: string | null; thumbnail: string | null }[] }[] } };
      expect(JSON.stringify(view)).not.toContain('Xavier');
      expect(JSON.stringify(data(d))).not.toContain('Xavier');
      expect(view.path).toEqual(['Ada Stone', '[removed]', 'Yuliya Park', 'Bea North']);
      expect(view.result.path).toEqual(['Ada Stone', '[removed]', 'Yuliya Park', 'Bea North']);
      const [ax, xy, yb] = view.result.edges;
      for (const e of [ax, xy]) expect(e?.evidence).toEqual([expect.objectContaining({ imageUrl: '[removed]', sourcePageUrl: null, thumbnail: null })]);
      // An edge not touching them keeps its evidence.
      expect(yb?.evidence).toEqual([expect.objectContaining({ imageUrl: 'https://img.example/c-yul-c-bea-97.jpg', sourcePageUrl: 'https://news.example/c-yul-c-bea' })]);
      const cards = view.events.filter((e) => e.type === 'evidence').map((e) => [e.data['from'], e.data['to'], e.data['imageUrl'], e.data['sourcePageUrl']]);
      expect(cards).toEqual([
        ['Ada Stone', '[removed]', '[removed]', null],
        ['[removed]', 'Yuliya Park', '[removed]', null],
        ['Yuliya Park', 'Bea North', 'https://img.example/c-yul-c-bea-97.jpg', 'https://news.example/c-yul-c-bea'],
      ]);
      expect(decisions(d, 'person_redacted')).toEqual([expect.objectContaining({ celebrity_id: XAV.celebrityId })]);
      expect(() => visualDegreesView.parse(view)).not.toThrow();
    });

    it('when the run does not name them, or is already redacted, then nothing changes and nothing is published', () => {
      const d = succeededThroughXavier();
      const version = d.s.run.version;
      const unrelated = takenDown(d, 'c-nobody');
      expect(unrelated.outcome).toBe('ignored');
      expect(unrelated.view()).toBeUndefined();
      takenDown(d, XAV.celebrityId);
      expect(takenDown(d, XAV.celebrityId).outcome).toBe('ignored');
      expect(d.s.run.version).toBe(version + 1);
    });

    it('when a photo of two other people also shows them, then that photo loses its URL, page and thumbnail everywhere; the names and other photos stay', () => {
      const d = selecting(undefined, ONE_SIDED);
      selected(d, [XAV]);
      verified(d, edge(ADA, XAV), usage(0, 0, true));
      refuted(d, XAV, { name: BEA.name });
      discovered(d, XAV, [candidate(YUL, 92, 1, XAV)]);
      selected(d, [YUL]);
      verified(d, edge(XAV, YUL), usage(0, 0, true));
      // Y and B photographed together with Zed in the background: the recogniser named all three. Zed is
      // never a candidate, so the run never names him; only the photo's `shows` knows he is in it.
      const crowd = edge(YUL, BEA, [[97, 91], [88, 86]]);
      const withZed = { ...crowd, evidence: crowd.evidence.map((img, i) => ({ ...img, thumbnailKey: `thumb-${i}`, shows: i === 0 ? [YUL.celebrityId, BEA.celebrityId, ZED.celebrityId] : [YUL.celebrityId, BEA.celebrityId] })) };
      expect(verified(d, withZed).state).toBe('SUCCEEDED');
      const zedPhoto = withZed.evidence[0]?.imageUrl ?? '';
      expect(JSON.stringify(data(d))).toContain(zedPhoto);

      const s = takenDown(d, ZED.celebrityId);
      expect(s.outcome).toBe('applied');
      expect(s.state).toBe('SUCCEEDED');
      const view = s.view() as { path: string[]; events: { type: string; data: Record<string, unknown> }[]; result: { edges: { evidence: { imageUrl: string; sourcePageUrl: string | null; thumbnail: string | null }[] }[] } };
      // Neither the run's data nor its view (the SSE stream's source) holds the photo's address any more.
      expect(JSON.stringify(data(d))).not.toContain(zedPhoto);
      expect(JSON.stringify(view)).not.toContain(zedPhoto);
      expect(view.path).toEqual(['Ada Stone', 'Xavier Reed', 'Yuliya Park', 'Bea North']);
      const yb = view.result.edges[2];
      expect(yb?.evidence).toEqual([
        expect.objectContaining({ imageUrl: '[removed]', sourcePageUrl: null, thumbnail: null }),
        expect.objectContaining({ imageUrl: 'https://img.example/c-yul-c-bea-88.jpg', sourcePageUrl: 'https://news.example/c-yul-c-bea', thumbnail: '0123456789abcdef' }),
      ]);
      // The Y–B card showed the best photo, the one with Zed in it; the other edges' cards keep theirs.
      const cards = view.events.filter((e) => e.type === 'evidence').map((e) => [e.data['to'], e.data['imageUrl'], e.data['thumbnail']]);
      expect(cards).toEqual([
        ['Xavier Reed', 'https://img.example/c-ada-c-xav-97.jpg', null],
        ['Yuliya Park', 'https://img.example/c-xav-c-yul-97.jpg', null],
        ['Bea North', '[removed]', null],
      ]);
      expect(() => visualDegreesView.parse(view)).not.toThrow();
      // Redacted once: a second delivery changes nothing.
      expect(takenDown(d, ZED.celebrityId).outcome).toBe('ignored');
    });

    it('when the direct attempt’s partial evidence photo also shows them, then that photo loses its URL and page in the event; nothing else changes', () => {
      const d = started(ONE_SIDED);
      // Ada without Bea, with Zed beside her: a partial photo (one side only). Zed is never a candidate
      // and no edge shows him; only the reply's `shows` knows he is in it.
      const adaWithZed = { imageUrl: 'https://img.example/ada-zed.jpg', sourcePageUrl: 'https://news.example/ada-zed', query: 'Ada Stone Bea North', confidenceFrom: 96, confidenceTo: null, shows: [ADA.celebrityId, ZED.celebrityId] };
      const beaAlone = { imageUrl: 'https://img.example/bea.jpg', sourcePageUrl: 'https://news.example/bea', query: 'Ada Stone Bea North', confidenceFrom: null, confidenceTo: 90, shows: [BEA.celebrityId] };
      refuted(d, { name: ADA.name }, BEA, usage(1, 5), { partialEvidence: [adaWithZed, beaAlone] });
      discovered(d, ADA, [candidate(XAV, 95)]);
      selected(d, [XAV]);
      verified(d, edge(ADA, XAV), usage(0, 0, true));
      const done = verified(d, edge(XAV, BEA));
      expect(done.state).toBe('SUCCEEDED');
      const partialCard = (view: unknown) => (view as { events: { type: string; data: Record<string, unknown> }[] }).events.find((e) => e.data['partial'] === true)?.data;
      expect(partialCard(done.view())).toMatchObject({ imageUrl: adaWithZed.imageUrl, sourcePageUrl: adaWithZed.sourcePageUrl });
      // Who a photo shows is the run's, not the stream's.
      expect(partialCard(done.view())).not.toHaveProperty('shows');

      const s = takenDown(d, ZED.celebrityId);
      expect(s.outcome).toBe('applied');
      expect(s.state).toBe('SUCCEEDED');
      expect(JSON.stringify(data(d))).not.toContain(adaWithZed.imageUrl);
      expect(JSON.stringify(s.view())).not.toContain(adaWithZed.imageUrl);
      expect(JSON.stringify(s.view())).not.toContain(adaWithZed.sourcePageUrl);
      expect(partialCard(s.view())).toEqual({ partial: true, from: ADA.name, to: BEA.name, imageUrl: '[removed]', sourcePageUrl: null, confidenceFrom: 96, confidenceTo: null, images: 2 });
      // The chain and its photos stay: Zed is in none of them.
      expect((s.view() as { path: string[] }).path).toEqual([ADA.name, XAV.name, BEA.name]);
      expect(JSON.stringify(s.view())).toContain(edge(ADA, XAV).evidence[0]?.imageUrl);
      expect(() => visualDegreesView.parse(s.view())).not.toThrow();
      expect(takenDown(d, ZED.celebrityId).outcome).toBe('ignored');
    });

    it('a failed run is redacted the same way', () => {
      const failed = selecting([candidate(XAV, 95)], ONE_SIDED);
      selected(failed, [XAV]);
      expect(refuted(failed, ADA, XAV).state).toBe('FAILED');
      const s = takenDown(failed, XAV.celebrityId);
      expect(s.state).toBe('FAILED');
      expect(JSON.stringify(data(failed))).not.toContain('Xavier');
    });
  });

  describe('a person taken down while the run is going (an amendment: the definition re-plans)', () => {
    const takenDown = (d: SagaDriver, celebrityId: string) =>
      d.when(d.s.event(VisualPersonTakenDown, { commandId: 'takedown-2', recognizer: 'local-world', celebrityId, cacheEntriesRemoved: 0, thumbnailsRemoved: 0, at: '2026-11-28T14:00:00.000Z' }));

    it('when the person being verified is taken down (S4), then S2 starts again from the frontier without them; the old step’s reply is stale', () => {
      const d = selecting(undefined, ONE_SIDED);
      selected(d, [XAV]);
      expect(d.s.run.state).toBe('VERIFYING');
      const verifies = d.commandCount(VerifyEdge);
      const s = takenDown(d, XAV.celebrityId);
      expect(s.outcome).toBe('applied');
      expect(s.state).toBe('DISCOVERING');
      expect(JSON.stringify(data(d))).not.toContain('Xavier');
      expect(data(d).deadEnds).toContain(XAV.celebrityId);
      expect(data(d).candidates).toEqual([]);
      // The new discovery from Ada tells the service never to propose them.
      expect(s.sent(DiscoverCandidates)).toEqual([expect.objectContaining({ frontier: expect.objectContaining({ celebrityId: ADA.celebrityId }), exclude: expect.arrayContaining([XAV.celebrityId]) })]);
      expect(decisions(d, 'person_taken_down')).toEqual([expect.objectContaining({ celebrity_id: XAV.celebrityId, state: 'VERIFYING' })]);
      // The verification of Ada ↔ Xavier answers late: it belongs to a step that is over.
      const late = d.reply(VerifyEdge, EdgeVerified, { step: step(d), edge: edge(ADA, XAV), usage: usage(1, 5) }, verifies - 1);
      expect(late.outcome).not.toBe('applied');
      expect(d.s.run.state).toBe('DISCOVERING');
      expect(data(d).path.map((p) => p.name)).toEqual([ADA.name]);
      // A second delivery finds nothing more to change.
      expect(takenDown(d, XAV.celebrityId).outcome).toBe('ignored');
    });

    it('when a person on the chain is taken down (S5), then the chain is cut back before them and the run finds another chain without them', () => {
      const d = selecting(undefined, ONE_SIDED);
      selected(d, [XAV]);
      expect(verified(d, edge(ADA, XAV), usage(0, 0, true)).state).toBe('BRIDGING');
      const s = takenDown(d, XAV.celebrityId);
      expect(s.state).toBe('DISCOVERING');
      expect(data(d).path).toEqual([ADA]);
      expect(data(d).edges).toEqual([]);
      const view = s.view() as { path: string[]; hop_depth: number; events: { type: string; data: Record<string, unknown> }[] };
      expect(view.path).toEqual([ADA.name]);
      expect(view.hop_depth).toBe(0);
      expect(JSON.stringify(view)).not.toContain('Xavier');
      expect(JSON.stringify(view)).not.toContain(edge(ADA, XAV).evidence[0]?.imageUrl);
      expect(view.events.at(-1)).toMatchObject({ type: 'status' });
      expect(view.events.filter((e) => e.type === 'path_update').at(-1)?.data).toMatchObject({ path: [ADA.name], hops: 0 });
      expect(() => visualDegreesView.parse(view)).not.toThrow();
      // The search goes on from Ada, through Yuliya.
      discovered(d, ADA, [candidate(YUL, 93)]);
      selected(d, [YUL]);
      verified(d, edge(ADA, YUL), usage(0, 0, true));
      const done = verified(d, edge(YUL, BEA));
      expect(done.state).toBe('SUCCEEDED');
      expect((done.view() as { path: string[] }).path).toEqual([ADA.name, YUL.name, BEA.name]);
    });

    it('when the only photo of a chain’s edge also shows them, then that edge goes too; when the edge has another photo, it keeps that one and the run carries on', () => {
      const withZedIn = (e: ReturnType<typeof edge>, photos: number[]) => ({ ...e, evidence: e.evidence.map((img, i) => ({ ...img, shows: photos.includes(i) ? [e.from.celebrityId, e.to.celebrityId, ZED.celebrityId] : [e.from.celebrityId, e.to.celebrityId] })) });
      const kept = selecting([candidate(XAV, 95)], ONE_SIDED);
      selected(kept, [XAV]);
      verified(kept, withZedIn(edge(ADA, XAV, [[97, 91], [88, 86]]), [0]), usage(0, 0, true));
      const bridging = step(kept);
      const stays = takenDown(kept, ZED.celebrityId);
      expect(stays.outcome).toBe('applied');
      expect(stays.state).toBe('BRIDGING');
      expect(step(kept)).toBe(bridging);
      expect(data(kept).edges).toEqual([expect.objectContaining({ edgeConf: 86, evidence: [expect.objectContaining({ imageUrl: 'https://img.example/c-ada-c-xav-88.jpg' })] })]);
      expect(JSON.stringify(data(kept))).not.toContain('c-ada-c-xav-97');
      expect(verified(kept, edge(XAV, BEA)).state).toBe('SUCCEEDED');

      const cut = selecting([candidate(XAV, 95)], ONE_SIDED);
      selected(cut, [XAV]);
      verified(cut, withZedIn(edge(ADA, XAV), [0]), usage(0, 0, true));
      expect(takenDown(cut, ZED.celebrityId).state).toBe('DISCOVERING');
      expect(data(cut).path).toEqual([ADA]);
    });

    it('when a candidate of the selection in flight is taken down (S3), then S3 is asked again over the others; the old choice is stale', () => {
      const d = selecting(undefined, ONE_SIDED);
      const selects = d.commandCount(SelectNextExpansion);
      const s = takenDown(d, ZED.celebrityId);
      expect(s.state).toBe('SELECTING');
      expect(s.sent(SelectNextExpansion)).toEqual([expect.objectContaining({ candidates: [expect.objectContaining({ person: XAV })] })]);
      expect(JSON.stringify(data(d))).not.toContain('Zed');
      const late = d.reply(SelectNextExpansion, ExpansionSelected, { step: step(d), nextCandidates: [ZED], searchQueries: [], narration: '', decidedBy: 'llm', usage: { llmCalls: 1, costUsd: 0, model: 'm' } }, selects - 1);
      expect(late.outcome).not.toBe('applied');
      expect(selected(d, [XAV]).state).toBe('VERIFYING');
      expect(frontierOf(d)).toEqual(ADA);
    });

    it('when a reply made before the service knew pictures them, then that photo is redacted as it arrives; the edge keeps its other photos', () => {
      const d = selecting(undefined, ONE_SIDED);
      takenDown(d, ZED.celebrityId);
      selected(d, [XAV]);
      const both = edge(ADA, XAV, [[97, 91], [88, 86]]);
      const withZed = { ...both, evidence: both.evidence.map((img, i) => ({ ...img, shows: i === 0 ? [ADA.celebrityId, XAV.celebrityId, ZED.celebrityId] : [ADA.celebrityId, XAV.celebrityId] })) };
      const s = verified(d, withZed, usage(0, 0, true));
      expect(s.state).toBe('BRIDGING');
      expect(JSON.stringify(data(d))).not.toContain(withZed.evidence[0]?.imageUrl);
      expect(JSON.stringify(s.view())).not.toContain(withZed.evidence[0]?.imageUrl);
      expect(JSON.stringify(data(d))).toContain(withZed.evidence[1]?.imageUrl);
      expect(verified(d, edge(XAV, BEA)).state).toBe('SUCCEEDED');
      expect(JSON.stringify(data(d))).not.toContain(withZed.evidence[0]?.imageUrl);
    });

    it('when a reply made before the service knew has them in its only photo, then the edge is refuted, not kept with a "[removed]" picture; a last hop so pictured does not end the run', () => {
      const onlyWithZed = (e: ReturnType<typeof edge>) => ({ ...e, evidence: e.evidence.map((img) => ({ ...img, shows: [e.from.celebrityId, e.to.celebrityId, ZED.celebrityId] })) });
      const d = selecting(undefined, ONE_SIDED);
      takenDown(d, ZED.celebrityId);
      selected(d, [XAV]);
      const late = verified(d, onlyWithZed(edge(ADA, XAV)), usage(0, 0, true));
      expect(late.outcome).toBe('applied');
      expect(late.state).not.toBe('BRIDGING');
      expect(data(d).path).toEqual([ADA]);
      expect(data(d).edges).toEqual([]);
      expect(JSON.stringify(data(d))).not.toContain('[removed]');
      expect((late.view() as { events: { type: string }[] }).events.filter((e) => e.type === 'evidence')).toEqual([]);

      // S5: the bridge to B answered with only a photo that shows them: no success on it.
      const bridging = selecting(undefined, ONE_SIDED);
      selected(bridging, [XAV]);
      verified(bridging, edge(ADA, XAV), usage(0, 0, true));
      expect(takenDown(bridging, ZED.celebrityId).outcome).toBe('applied');
      const lastHop = verified(bridging, onlyWithZed(edge(XAV, BEA)));
      expect(lastHop.state).toBe('DISCOVERING');
      expect(data(bridging).path).toEqual([ADA, XAV]);
      expect(JSON.stringify(data(bridging))).not.toContain('[removed]');
    });

    it('when a candidate of the selection in flight is taken down and none is left, then S2 starts again from the frontier', () => {
      const d = selecting([candidate(ZED, 90)], ONE_SIDED);
      const s = takenDown(d, ZED.celebrityId);
      expect(s.state).toBe('DISCOVERING');
      expect(s.sent(DiscoverCandidates)).toEqual([expect.objectContaining({ exclude: expect.arrayContaining([ZED.celebrityId]) })]);
    });

    it('when the person is only in a photo streamed earlier, then the photo is removed and the step in flight goes on', () => {
      const d = started(ONE_SIDED);
      const adaWithZed = { imageUrl: 'https://img.example/ada-zed.jpg', sourcePageUrl: 'https://news.example/ada-zed', query: 'Ada Stone Bea North', confidenceFrom: 96, confidenceTo: null, shows: [ADA.celebrityId, ZED.celebrityId] };
      refuted(d, { name: ADA.name }, BEA, usage(1, 5), { partialEvidence: [adaWithZed] });
      const discovering = step(d);
      const s = takenDown(d, ZED.celebrityId);
      expect(s.state).toBe('DISCOVERING');
      expect(s.sent(DiscoverCandidates)).toEqual([]);
      expect(step(d)).toBe(discovering);
      expect(JSON.stringify(data(d))).not.toContain(adaWithZed.imageUrl);
      expect(discovered(d, ADA, [candidate(XAV, 95)]).state).toBe('SELECTING');
    });

    it('when a person the run connects is taken down, then it ends in S7 `person_taken_down`, their name redacted, and the service is told to abort its step', () => {
      const d = selecting(undefined, START);
      const s = takenDown(d, ADA.celebrityId);
      expect(s.state).toBe('FAILED');
      const view = s.view() as { events: { type: string; data: Record<string, unknown> }[]; failure: { reason: string } };
      expect(view.failure.reason).toBe('person_taken_down');
      expect(view.events.at(-1)).toMatchObject({ type: 'no_path', data: { reason: 'person_taken_down', message: expect.stringContaining('taken down') } });
      expect(JSON.stringify(view)).not.toContain('Ada');
      expect(JSON.stringify(data(d))).not.toContain('Ada');
      expect(s.sent(RunEnded)).toEqual([expect.objectContaining({ state: 'FAILED', reason: 'person_taken_down' })]);
      expect(() => visualDegreesView.parse(view)).not.toThrow();
    });

    it('when the run does not name them, then nothing changes', () => {
      const d = selecting(undefined, ONE_SIDED);
      const version = d.s.run.version;
      expect(takenDown(d, 'c-nobody').outcome).toBe('ignored');
      expect(d.s.run.version).toBe(version);
    });
  });
});
