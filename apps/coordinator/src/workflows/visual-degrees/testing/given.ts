import { CandidatesDiscovered, DiscoverCandidates, EdgeRefuted, EdgeVerified, ExpansionSelected, type MessageData, SelectNextExpansion, VerifyEdge } from '@openpaw/contracts';
import { SagaDriver } from '../../testing/saga-driver.js';
import type { VisualDegreesData } from '../visual-degrees.data.js';
import { visualDegreesDefinition } from '../visual-degrees.definition.js';

/**
 * Given helpers of the visual_degrees specs (one spec file per concern): the persons, evidence and
 * candidates of the fixtures, the service's replies, and a run brought to S3 through the inputs that lead there.
 */
export const definition = visualDegreesDefinition();

export const ADA = { name: 'Ada Stone', celebrityId: 'c-ada' };
export const XAV = { name: 'Xavier Reed', celebrityId: 'c-xav' };
export const YUL = { name: 'Yuliya Park', celebrityId: 'c-yul' };
export const ZED = { name: 'Zed Moss', celebrityId: 'c-zed' };
export const BEA = { name: 'Bea North', celebrityId: 'c-bea' };
export const START = { from: ADA.name, to: BEA.name };
/** Spec 03's MVP strategy (meeting in the middle is the default). */
export const ONE_SIDED = { ...START, options: { strategy: 'one_sided' } };
export type Person = { name: string; celebrityId: string };
export type Usage = MessageData<typeof EdgeVerified>['usage'];

export const usage = (searchCalls: number, recognitionCalls: number, cacheHit = false): Usage => ({ searchCalls, recognitionCalls, imagesSkipped: 0, cacheHit });
/** A discovery whose pages came back short (3 photos for its 2 queries): the engine holds no more photos of the frontier. */
export const SHORT_PAGES = usage(1, 3);
export const image = (a: Person, b: Person, confidenceFrom: number, confidenceTo: number) => ({
  imageUrl: `https://img.example/${a.celebrityId}-${b.celebrityId}-${confidenceFrom}.jpg`,
  sourcePageUrl: `https://news.example/${a.celebrityId}-${b.celebrityId}`,
  query: `${a.name} ${b.name}`,
  phash: '0123456789abcdef',
  confidenceFrom,
  confidenceTo,
});
export const edge = (a: Person, b: Person, confs: readonly [number, number][] = [[97, 91]]) => {
  const evidence = confs.map(([f, t]) => image(a, b, f, t));
  return { from: a, to: b, edgeConf: Math.max(...confs.map(([f, t]) => Math.min(f, t))), evidence };
};
export const candidate = (person: Person, bestConfWithFrontier: number, count = 1, frontier: Person = ADA) => ({
  person,
  count,
  bestConfWithFrontier,
  evidence: [image(frontier, person, 95, bestConfWithFrontier)],
});

export const data = (d: SagaDriver): VisualDegreesData => d.s.run.data as VisualDegreesData;
/** The saga's step number of the command in flight (what the service echoes). */
export const step = (d: SagaDriver): number => data(d).stepNo;

export const verified = (d: SagaDriver, e: ReturnType<typeof edge>, u = usage(1, 5)) => d.reply(VerifyEdge, EdgeVerified, { step: step(d), edge: e, usage: u });
export const refuted = (d: SagaDriver, from: Partial<Person> & { name: string }, to: Partial<Person> & { name: string }, u = usage(1, 5), over: Partial<MessageData<typeof EdgeRefuted>> = {}) =>
  d.reply(VerifyEdge, EdgeRefuted, { step: step(d), from, to, reason: 'no_evidence', partialEvidence: [], usage: u, ...over });
export const discovered = (d: SagaDriver, frontier: Person, candidates: ReturnType<typeof candidate>[], u = usage(3, 15), over: Partial<MessageData<typeof CandidatesDiscovered>> = {}) =>
  d.reply(DiscoverCandidates, CandidatesDiscovered, { step: step(d), frontier, candidates, usage: u, ...over });
export const selected = (d: SagaDriver, next: Person[], over: Partial<MessageData<typeof ExpansionSelected>> = {}) =>
  d.reply(SelectNextExpansion, ExpansionSelected, {
    step: step(d),
    nextCandidates: next,
    searchQueries: [`${next[0]?.name ?? ''} backstage`],
    narration: `Trying an expansion via ${next[0]?.name ?? ''}`,
    decidedBy: 'llm',
    usage: { llmCalls: 1, costUsd: 0.001, model: 'local/model' },
    ...over,
  });

const isOneSided = (input: Record<string, unknown>): boolean => (input['options'] as { strategy?: string } | undefined)?.strategy === 'one_sided';

export function started(input: Record<string, unknown> = START): SagaDriver {
  const d = new SagaDriver(definition);
  d.start(input);
  return d;
}

/** A run that found nothing directly and discovered `candidates` around Ada. */
export function selecting(candidates = [candidate(XAV, 95, 2), candidate(ZED, 90, 1)], input: Record<string, unknown> = START): SagaDriver {
  const d = started(input);
  // One-sided, the direct attempt's photos showed B at the threshold (the reply names B's id), so B
  // needs no check of its own (`directEdgeRefuted`).
  refuted(d, { name: ADA.name }, isOneSided(input) ? BEA : { name: BEA.name });
  discovered(d, ADA, candidates);
  return d;
}

/** The node the run's current side expands from. */
export const frontierOf = (d: SagaDriver): Person => {
  const { side, path, reversePath } = data(d);
  return (side === 'from' ? path : reversePath).at(-1) as Person;
};
export const eventTypes = (d: SagaDriver): string[] => data(d).events.map((e) => e.type);
export const decisions = (d: SagaDriver, decision: string) => d.logs.filter((l) => l.stepName === 'decision' && l.payload['decision'] === decision).map((l) => l.payload);
