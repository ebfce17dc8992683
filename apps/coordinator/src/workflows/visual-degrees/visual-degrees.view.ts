import { type EdgeRefuted, edgeConfidence, type MessageData, pathBottleneck, pathCumulative, type VisualDegreesView, type VisualWorldInfo } from '@openpaw/contracts';
import type { JsonObject, RunSnapshot } from '@openpaw/saga';
import { durationMs, statusOf } from '../shared/run-status.js';
import { type Budgets, type EvidenceCard, type FinalPayload, hopsVerified, type PartialPhoto, type Person, type StreamEvent, type Usage, type VerifiedEdge, type VisualDegreesData, type VisualDegreesState } from './visual-degrees.data.js';

/** The run's public view: its chains, budgets, stream events and result or failure (the contract's `visualDegreesView`). */
export function visualDegreesViewOf(run: RunSnapshot<VisualDegreesState, VisualDegreesData>): JsonObject {
  const d = run.data;
  const final = d.events.find((e) => e.type === 'final');
  return {
    status: statusOf(run.state),
    state: run.state,
    from: d.from.name,
    to: d.to.name,
    hop_limit: d.hopLimit,
    hop_depth: hopsVerified(d),
    strategy: d.strategy,
    path: d.path.map((p) => p.name),
    ...(d.strategy === 'one_sided' ? {} : { reverse_path: d.reversePath.map((p) => p.name) }),
    budgets: { ...d.budgets },
    used: { ...d.used },
    duration_ms: durationMs(run, d.startedAt),
    events: d.events.map((e) => ({ ...e, data: { ...e.data } })),
    ...(final === undefined ? {} : { result: { ...final.data } }),
    ...(d.failure === null ? {} : { failure: failureOf(d.failure) }),
    ...(d.world === undefined ? {} : { world: { ...d.world } }),
  } satisfies VisualDegreesView;
}

function failureOf({ reason, detail, unknownNames, knownNames }: NonNullable<VisualDegreesData['failure']>): NonNullable<VisualDegreesView['failure']> {
  return { reason, detail, ...(unknownNames === undefined ? {} : { unknownNames: [...unknownNames] }), ...(knownNames === undefined ? {} : { knownNames: [...knownNames] }) };
}

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

/**
 * Spec 03 S1's optional partial evidence: the direct attempt's best photo of one side without the other
 * (the strongest confidence on either side), marked `partial`, and who the recogniser saw in it (kept in
 * the run's data, not streamed: `partialPhotos`); none when no photo showed either.
 */
export function partialEvidence(from: Person, to: Person, images: readonly PartialEvidenceImage[]): { readonly event: EventBody; readonly photo?: PartialPhoto } | undefined {
  const strongest = (image: PartialEvidenceImage): number => Math.max(image.confidenceFrom ?? 0, image.confidenceTo ?? 0);
  const best = [...images].sort((a, b) => strongest(b) - strongest(a))[0];
  if (best === undefined) return undefined;
  const data = {
    partial: true as const,
    from: from.name,
    to: to.name,
    imageUrl: best.imageUrl,
    sourcePageUrl: best.sourcePageUrl ?? null,
    confidenceFrom: best.confidenceFrom,
    confidenceTo: best.confidenceTo,
    images: images.length,
  };
  return { event: { type: 'evidence', data }, ...(best.shows === undefined ? {} : { photo: { imageUrl: best.imageUrl, shows: [...best.shows] } }) };
}

type PartialEvidenceImage = MessageData<typeof EdgeRefuted>['partialEvidence'][number];

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

/** What a person taken down is called in a finished run from then on. */
export const REMOVED = '[removed]';

/**
 * A finished run redacted after a takedown (`VisualPersonTakenDown`): every name the run knew the person
 * by (wherever it was written: chains, evidence cards, status messages, queries, the result, the failure)
 * becomes "[removed]", and every evidence image of an edge or card touching them loses its image URL,
 * source page, thumbnail and pHash. So does every photo that shows them beside two other people (its
 * `shows` names them, or `partialPhotos` for the partial evidence streamed), and every copy of it (the
 * cards and the result repeat its URL, not who it shows).
 * Celebrity ids stay (they are the recogniser's opaque keys, and a second takedown must still find the
 * run). Undefined when the run never named nor pictured them, or is already redacted: nothing to change.
 */
export function redactPerson(data: VisualDegreesData, celebrityId: string): VisualDegreesData | undefined {
  const names = namesOf(data, celebrityId);
  const picturing = imageUrlsShowing(data, celebrityId);
  if (names.length === 0 && picturing.size === 0) return undefined;
  const pattern = names.length === 0 ? undefined : new RegExp(names.map((name) => name.trim().split(/\s+/).map(escape).join('\\s+')).join('|'), 'giu');
  const isThem = (value: unknown): boolean =>
    typeof value === 'string'
      ? pattern !== undefined && value !== '' && value.replace(pattern, '') === ''
      : isObject(value) && (value['celebrityId'] === celebrityId || (value['celebrityId'] === undefined && isThem(value['name'])));
  const picturesThem = (o: Record<string, unknown>): boolean => typeof o['imageUrl'] === 'string' && picturing.has(o['imageUrl']);
  const touches = (o: Record<string, unknown>): boolean => isThem(o['from']) || isThem(o['to']) || isThem(o['person']) || picturesThem(o);
  const walk = (value: unknown, touching: boolean): unknown => {
    if (typeof value === 'string') return pattern === undefined ? value : value.replace(pattern, REMOVED);
    if (Array.isArray(value)) return value.map((item) => walk(item, touching));
    if (!isObject(value)) return value;
    const inside = touching || touches(value);
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      if (inside && DROPPED_IMAGE_FIELDS.has(key)) continue;
      if (inside && Object.hasOwn(REPLACED_IMAGE_FIELDS, key)) {
        out[key] = REPLACED_IMAGE_FIELDS[key];
        continue;
      }
      out[key] = walk(field, inside);
    }
    return out;
  };
  // The data is JSON (it is stored as such); the walk keeps its shape.
  return walk(data, false) as VisualDegreesData;
}

/** Fields of an evidence image touching the person, and what stands in their place. */
const REPLACED_IMAGE_FIELDS: Readonly<Record<string, string | null>> = { imageUrl: REMOVED, sourcePageUrl: null, thumbnail: null };
/** Fields of an evidence image touching the person that go. */
const DROPPED_IMAGE_FIELDS: ReadonlySet<string> = new Set(['thumbnailKey', 'phash']);

/** The image URLs of the photos the recogniser saw the person in (evidence images whose `shows` names them), not yet redacted. */
function imageUrlsShowing(data: VisualDegreesData, celebrityId: string): Set<string> {
  const urls = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (isObject(value)) {
      const shows = value['shows'];
      const url = value['imageUrl'];
      if (Array.isArray(shows) && shows.includes(celebrityId) && typeof url === 'string' && url !== REMOVED) urls.add(url);
      Object.values(value).forEach(visit);
    }
  };
  visit(data);
  return urls;
}

/** Every name the run knew the person by (a person object with their id, anywhere in the data). */
function namesOf(data: VisualDegreesData, celebrityId: string): string[] {
  const names = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (isObject(value)) {
      if (value['celebrityId'] === celebrityId && typeof value['name'] === 'string' && value['name'].trim() !== '' && value['name'] !== REMOVED) names.add(value['name']);
      Object.values(value).forEach(visit);
    }
  };
  visit(data);
  // Longest first, so a name is never half-replaced by a shorter spelling of it.
  return [...names].sort((a, b) => b.length - a.length);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
