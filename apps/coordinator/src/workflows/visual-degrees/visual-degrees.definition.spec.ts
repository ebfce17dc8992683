import {
  CandidatesDiscovered,
  DiscoverCandidates,
  EdgeRefuted,
  EdgeVerified,
  ExpansionSelected,
  InputRefused,
  laneOf,
  type MessageData,
  SelectNextExpansion,
  VerifyEdge,
  VisualPersonTakenDown,
  VisualStepFailed,
  visualDegreesRunView,
  visualDegreesView,
} from '@openpaw/contracts';
import { z } from 'zod';
import { isAllowed, RUN_DEADLINE_TIMER, replayRun, validateDefinition } from '@openpaw/saga';
import { SagaDriver } from '../testing/saga-driver.js';
import {
  DEFAULT_VISUAL_DEGREES_TIMINGS,
  VISUAL_DEGREES_STATES,
  VISUAL_DEGREES_TRANSITIONS,
  visualDegreesDefinition,
} from './visual-degrees.definition.js';
import type { VisualDegreesData } from './visual-degrees.data.js';

const definition = visualDegreesDefinition();

const ADA = { name: 'Ada Stone', celebrityId: 'c-ada' };
const XAV = { name: 'Xavier Reed', celebrityId: 'c-xav' };
const YUL = { name: 'Yuliya Park', celebrityId: 'c-yul' };
const ZED = { name: 'Zed Moss', celebrityId: 'c-zed' };
const BEA = { name: 'Bea North', celebrityId: 'c-bea' };
const START = { from: ADA.name, to: BEA.name };
/** Spec 03's MVP strategy (meeting in the middle is the default). */
const ONE_SIDED = { ...START, options: { strategy: 'one_sided' } };
type Person = { name: string; celebrityId: string };
type Usage = MessageData<typeof EdgeVerified>['usage'];

const usage = (searchCalls: number, recognitionCalls: number, cacheHit = false): Usage => ({ searchCalls, recognitionCalls, imagesSkipped: 0, cacheHit });
const image = (a: Person, b: Person, confidenceFrom: number, confidenceTo: number) => ({
  imageUrl: `https://img.example/${a.celebrityId}-${b.celebrityId}-${confidenceFrom}.jpg`,
  sourcePageUrl: `https://news.example/${a.celebrityId}-${b.celebrityId}`,
  query: `${a.name} ${b.name}`,
  phash: '0123456789abcdef',
  confidenceFrom,
  confidenceTo,
});
const edge = (a: Person, b: Person, confs: readonly [number, number][] = [[97, 91]]) => {
  const evidence = confs.map(([f, t]) => image(a, b, f, t));
  return { from: a, to: b, edgeConf: Math.max(...confs.map(([f, t]) => Math.min(f, t))), evidence };
};
const candidate = (person: Person, bestConfWithFrontier: number, count = 1, frontier: Person = ADA) => ({
  person,
  count,
  bestConfWithFrontier,
  evidence: [image(frontier, person, 95, bestConfWithFrontier)],
});

const data = (d: SagaDriver): VisualDegreesData => d.s.run.data as VisualDegreesData;
/** The saga's step number of the command in flight (what the service echoes). */
const step = (d: SagaDriver): number => data(d).stepNo;

const verified = (d: SagaDriver, e: ReturnType<typeof edge>, u = usage(1, 5)) => d.reply(VerifyEdge, EdgeVerified, { step: step(d), edge: e, usage: u });
const refuted = (d: SagaDriver, from: Partial<Person> & { name: string }, to: Partial<Person> & { name: string }, u = usage(1, 5), over: Partial<MessageData<typeof EdgeRefuted>> = {}) =>
  d.reply(VerifyEdge, EdgeRefuted, { step: step(d), from, to, reason: 'no_evidence', partialEvidence: [], usage: u, ...over });
const discovered = (d: SagaDriver, frontier: Person, candidates: ReturnType<typeof candidate>[], u = usage(3, 15), over: Partial<MessageData<typeof CandidatesDiscovered>> = {}) =>
  d.reply(DiscoverCandidates, CandidatesDiscovered, { step: step(d), frontier, candidates, usage: u, ...over });
const selected = (d: SagaDriver, next: Person[], over: Partial<MessageData<typeof ExpansionSelected>> = {}) =>
  d.reply(SelectNextExpansion, ExpansionSelected, {
    step: step(d),
    nextCandidates: next,
    searchQueries: [`${next[0]?.name ?? ''} backstage`],
    narration: `Trying an expansion via ${next[0]?.name ?? ''}`,
    decidedBy: 'llm',
    usage: { llmCalls: 1, costUsd: 0.001, model: 'local/model' },
    ...over,
  });

function started(input: Record<string, unknown> = START): SagaDriver {
  const d = new SagaDriver(definition);
  d.start(input);
  return d;
}

/** A run that found nothing directly and discovered `candidates` around Ada. */
function selecting(candidates = [candidate(XAV, 95, 2), candidate(ZED, 90, 1)], input: Record<string, unknown> = START): SagaDriver {
  const d = started(input);
  refuted(d, { name: ADA.name }, { name: BEA.name });
  discovered(d, ADA, candidates);
  return d;
}

/** The node the run's current side expands from. */
const frontierOf = (d: SagaDriver): Person => {
  const { side, path, reversePath } = data(d);
  return (side === 'from' ? path : reversePath).at(-1) as Person;
};
const eventTypes = (d: SagaDriver): string[] => data(d).events.map((e) => e.type);
const decisions = (d: SagaDriver, decision: string) => d.logs.filter((l) => l.stepName === 'decision' && l.payload['decision'] === decision).map((l) => l.payload);

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
      expect(s.sent(VerifyEdge)).toEqual([expect.objectContaining({ from: XAV, to: { name: BEA.name }, queries: ['Xavier Reed Bea North'], pathSoFar: [ADA, XAV] })]);

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
      s = discovered(d, YUL, []);
      // Y is a dead end: back to B, whose candidates are tried.
      expect(s.sent(DiscoverCandidates)).toEqual([expect.objectContaining({ frontier: BEA })]);
      s = discovered(d, BEA, []);
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

  describe('S5: the hop limit', () => {
    it('when the chain has 5 hops and its end does not reach B, then it steps back rather than pass 6 hops, and ends when nothing shorter is left', () => {
      const people = Array.from({ length: 6 }, (_, i) => ({ name: `Person ${i}`, celebrityId: `c-${i}` }));
      const d = started({ ...START, options: { maxSearchCalls: 100, maxRecognitionCalls: 600, maxLlmCalls: 20, strategy: 'one_sided' } });
      refuted(d, { name: ADA.name }, { name: BEA.name });
      let frontier: Person = ADA;
      let last: ReturnType<typeof refuted> | undefined;
      for (const next of people.slice(0, 5)) {
        expect(d.s.run.state).toBe('DISCOVERING');
        discovered(d, frontier, [candidate(next, 90, 1, frontier)]);
        selected(d, [next]);
        verified(d, edge(frontier, next), usage(0, 0, true));
        last = refuted(d, next, { name: BEA.name });
        frontier = next;
      }
      // A 6th hop would need a 7th to reach B: Person 4 leaves the chain, and Person 3 is searched again without it.
      expect(d.s.run.state).toBe('DISCOVERING');
      expect(data(d).edges).toHaveLength(4);
      expect(decisions(d, 'step_back')).toEqual([expect.objectContaining({ dropped: 'Person 4', frontier: 'Person 3', hop_depth: 4 })]);
      expect(last?.sent(DiscoverCandidates)).toEqual([expect.objectContaining({ frontier: people[3], exclude: expect.arrayContaining(['c-4']) })]);
      // Nothing else anywhere: the chain steps back to A, then the run ends; never a path over 6 hops.
      for (let guard = 0; d.s.run.state === 'DISCOVERING' && guard < 10; guard++) discovered(d, frontierOf(d), []);
      expect(d.s.run.state).toBe('FAILED');
      expect(data(d).events.at(-1)).toMatchObject({ type: 'no_path', data: { message: 'No verified visual connection found within 6 degrees at ≥80% confidence.', reason: 'no_candidates', hopLimit: 6 } });
      expect(data(d).events.some((e) => e.type === 'final')).toBe(false);
    });

    it('when the limit is 1, then a refuted direct edge ends the run: no discovery could stay within one hop', () => {
      const d = started({ ...START, options: { maxHops: 1 } });
      const s = refuted(d, { name: ADA.name }, { name: BEA.name });
      expect(s.state).toBe('FAILED');
      expect(d.commandCount(DiscoverCandidates)).toBe(0);
      expect(data(d).failure).toMatchObject({ reason: 'hop_limit_reached' });
    });

    it('when the limit is lowered to 2, then one expansion at a time is all there is: a second steps back', () => {
      const d = selecting(undefined, { ...START, options: { maxHops: 2, strategy: 'one_sided' } });
      selected(d, [XAV]);
      verified(d, edge(ADA, XAV), usage(0, 0, true));
      const s = refuted(d, XAV, { name: BEA.name });
      // A → X → ? → B would be 3 hops: X leaves the chain and A is searched again without X.
      expect(s.state).toBe('DISCOVERING');
      expect(data(d).edges).toHaveLength(0);
      expect(s.sent(DiscoverCandidates)).toEqual([expect.objectContaining({ frontier: ADA, exclude: expect.arrayContaining(['c-xav']) })]);
      expect(discovered(d, ADA, []).state).toBe('FAILED');
      expect(data(d).failure).toMatchObject({ reason: 'no_candidates' });
    });
  });

  describe('budgets: each one spent ends the run in S7 with its reason', () => {
    it('search: the budget is spent before discovery can search', () => {
      const d = started({ ...START, options: { maxSearchCalls: 1 } });
      const s = refuted(d, { name: ADA.name }, { name: BEA.name }, usage(1, 5));
      expect(s.state).toBe('FAILED');
      expect(s.sent(DiscoverCandidates)).toEqual([]);
      expect(data(d).events.at(-1)).toMatchObject({ type: 'no_path', data: { reason: 'search_budget_exhausted', used: { searchCalls: 1 } } });
    });

    it('recognition: a step that stopped at its recognition budget', () => {
      const d = started();
      refuted(d, { name: ADA.name }, { name: BEA.name });
      const s = discovered(d, ADA, [candidate(XAV, 95)], usage(3, 115), { budgetExhausted: 'recognition' });
      expect(s.state).toBe('FAILED');
      expect(data(d).failure).toMatchObject({ reason: 'recognition_budget_exhausted' });
    });

    it('recognition: a verification refuted because the budget ran out is not a refutation of the candidate', () => {
      const d = selecting();
      selected(d, [XAV]);
      const s = refuted(d, ADA, XAV, usage(2, 10), { reason: 'budget_exhausted', budgetExhausted: 'search' });
      expect(s.state).toBe('FAILED');
      expect(data(d).failure).toMatchObject({ reason: 'search_budget_exhausted' });
      expect(data(d).failedFrom).toEqual({});
    });

    it('LLM calls: none (maxLlmCalls 0) or none left is no LLM, the deterministic ranking; the run goes on (ADR 0022)', () => {
      const d = selecting(undefined, { ...START, options: { maxLlmCalls: 0 } });
      expect(d.s.run.state).toBe('SELECTING');
      expect(d.s.run.data).toMatchObject({ used: { llmCalls: 0 } });
      expect(data(d).command).toMatchObject({ subject: SelectNextExpansion.subject, data: { budgetsRemaining: { llmCalls: 0 } } });
      const s = selected(d, [XAV], { decidedBy: 'fallback', fallbackReason: 'no_llm_budget', searchQueries: [], narration: '', usage: { llmCalls: 0, costUsd: 0 } });
      expect(s.state).toBe('VERIFYING');
      expect(s.sent(VerifyEdge)).toEqual([expect.objectContaining({ to: XAV, queries: ['Ada Stone Xavier Reed', 'Ada Stone Xavier Reed event'] })]);

      const spent = selecting(undefined, { ...START, options: { maxLlmCalls: 1 } });
      selected(spent, [XAV]);
      refuted(spent, ADA, XAV);
      expect(spent.s.run.state).toBe('SELECTING');
      expect(data(spent).command).toMatchObject({ subject: SelectNextExpansion.subject, data: { budgetsRemaining: { llmCalls: 0 } } });
    });

    it('runtime: the deadline passes mid-run', () => {
      const d = selecting(undefined, { ...START, options: { maxRuntimeMs: 5_000 } });
      const s = d.fire(RUN_DEADLINE_TIMER);
      expect(s.state).toBe('FAILED');
      expect(data(d).events.at(-1)).toMatchObject({ type: 'no_path', data: { reason: 'runtime_budget_exhausted' } });
      expect(d.pendingTimers()).toEqual([]);
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
      refuted(d, { name: ADA.name }, { name: BEA.name });
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
      refuted(d, { name: ADA.name }, { name: BEA.name });
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
