import { edgeConfidence, pathBottleneck, pathCumulative, type VisualWorldInfo } from '@openpaw/contracts';
import type { Budgets, EvidenceCard, FinalPayload, Person, StreamEvent, Usage, VerifiedEdge, VisualDegreesData } from './visual-degrees.model.js';

type EventBody = StreamEvent extends infer E ? (E extends StreamEvent ? Omit<E, 'seq' | 'at'> : never) : never;

/** Appends stream events to the run data, numbered after the last one (the SSE id). */
export function withEvents(data: VisualDegreesData, now: Date, ...events: readonly EventBody[]): VisualDegreesData {
  const first = (data.events.at(-1)?.seq ?? 0) + 1;
  const at = now.toISOString();
  return { ...data, events: [...data.events, ...events.map((event, i) => ({ ...event, seq: first + i, at }))] };
}

export const status = (message: string): EventBody => ({ type: 'status', data: { message } });

/** The chain from `from` so far; meeting in the middle, also the chain from `to` (to first). */
export function pathUpdate(path: readonly Person[], hops: number, reversePath?: readonly Person[]): EventBody {
  return { type: 'path_update', data: { path: path.map((p) => p.name), hops, ...(reversePath === undefined ? {} : { reversePath: reversePath.map((p) => p.name) }) } };
}

/** The edge card of a verified edge: its best image (by the edge rule), the page it came from, both confidences. */
export function evidenceCard(edge: VerifiedEdge): EvidenceCard {
  const best = [...edge.evidence].sort((a, b) => Math.min(b.confidenceFrom, b.confidenceTo) - Math.min(a.confidenceFrom, a.confidenceTo))[0];
  if (best === undefined) throw new Error('a verified edge has at least one evidence image');
  return {
    from: edge.from.name,
    to: edge.to.name,
    edgeConf: edgeConfidence(edge.evidence),
    imageUrl: best.imageUrl,
    sourcePageUrl: best.sourcePageUrl ?? null,
    confidenceFrom: best.confidenceFrom,
    confidenceTo: best.confidenceTo,
    images: edge.evidence.length,
    thumbnail: thumbnailOf(best),
  };
}

/**
 * The id of an evidence image's stored thumbnail (its pHash: `GET /visual-degrees/{id}/evidence/{thumbnail}`
 * serves it to the run's owner), or null when none was stored.
 */
const thumbnailOf = (image: VerifiedEdge['evidence'][number]): string | null => (image.thumbnailKey === undefined ? null : image.phash);

export const evidence = (edge: VerifiedEdge): EventBody => ({ type: 'evidence', data: evidenceCard(edge) });

/** S6's payload: the ordered path, the verified edges with their evidence, the confidence map, the graph, and the budgets spent. */
export function finalPayload(path: readonly Person[], edges: readonly VerifiedEdge[], spent: { readonly budgets: Budgets; readonly used: Usage }, world?: VisualWorldInfo): FinalPayload {
  const confs = edges.map((edge) => edgeConfidence(edge.evidence));
  const keyOf = (edge: VerifiedEdge): string => `${edge.from.celebrityId}->${edge.to.celebrityId}`;
  return {
    path: path.map((p) => p.name),
    edges: edges.map((edge, i) => ({
      from: edge.from.name,
      to: edge.to.name,
      edgeConf: confs[i] as number,
      evidence: edge.evidence.map((image) => ({ imageUrl: image.imageUrl, sourcePageUrl: image.sourcePageUrl ?? null, confidenceFrom: image.confidenceFrom, confidenceTo: image.confidenceTo, thumbnail: thumbnailOf(image) })),
    })),
    confidenceMap: { edges: Object.fromEntries(edges.map((edge, i) => [keyOf(edge), confs[i] as number])), bottleneck: pathBottleneck(confs), cumulative: pathCumulative(confs) },
    graph: {
      nodes: edges.flatMap((edge, i) => (i === 0 ? [edge.from, edge.to] : [edge.to])).map((p) => ({ id: p.celebrityId, name: p.name })),
      edges: edges.map((edge, i) => ({ source: edge.from.celebrityId, target: edge.to.celebrityId, edgeConf: confs[i] as number })),
    },
    ...(world === undefined ? {} : { world }),
    budgets: { ...spent.budgets },
    used: { ...spent.used },
  };
}
