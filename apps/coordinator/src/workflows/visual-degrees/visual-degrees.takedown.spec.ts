import { visualDegreesView, VisualPersonTakenDown } from '@openpaw/contracts';
import type { SagaDriver } from '../testing/saga-driver.js';
import { ADA, XAV, YUL, ZED, BEA, ONE_SIDED, usage, edge, candidate, data, verified, refuted, discovered, selected, selecting, started, decisions } from './testing/given.js';

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
      refuted(d, { name: ADA.name }, { name: BEA.name }, usage(1, 5), { partialEvidence: [adaWithZed, beaAlone] });
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

    it('a failed run is redacted the same way, and a running one is not amended (its later steps refute the person)', () => {
      const running = selecting(undefined, ONE_SIDED);
      selected(running, [XAV]);
      expect(takenDown(running, XAV.celebrityId).outcome).not.toBe('applied');
      expect(running.s.run.state).toBe('VERIFYING');
      const failed = selecting([candidate(XAV, 95)], ONE_SIDED);
      selected(failed, [XAV]);
      expect(refuted(failed, ADA, XAV).state).toBe('FAILED');
      const s = takenDown(failed, XAV.celebrityId);
      expect(s.state).toBe('FAILED');
      expect(JSON.stringify(data(failed))).not.toContain('Xavier');
    });
  });
});
