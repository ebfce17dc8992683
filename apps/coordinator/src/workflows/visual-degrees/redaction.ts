import type { VisualDegreesData } from './visual-degrees.model.js';

/** What a person taken down is called in a finished run from then on. */
export const REMOVED = '[removed]';

/**
 * A finished run redacted after a takedown (`VisualPersonTakenDown`): every name the run knew the person
 * by (wherever it was written: chains, evidence cards, status messages, queries, the result, the failure)
 * becomes "[removed]", and every evidence image of an edge or card touching them loses its image URL,
 * source page, thumbnail and pHash. So does every photo that shows them beside two other people (its
 * `shows` names them), and every copy of it (the cards and the result repeat its URL, not who it shows).
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
