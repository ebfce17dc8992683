import type { z } from 'zod';
import { ProviderError } from '../llm/errors.js';
import type { ImageSearchHit } from './port.js';

/** Validates a provider's response with its zod schema; a mismatch is a typed `malformed_response`. */
export function parseResponse<S extends z.ZodType>(provider: string, schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    throw new ProviderError('malformed_response', provider, `unexpected response shape: ${parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return parsed.data;
}

/** Keeps http(s) image URLs only, renumbers positions from 1, and stops at `limit`. */
export function firstHits(hits: readonly Omit<ImageSearchHit, 'position'>[], limit: number): ImageSearchHit[] {
  const kept: ImageSearchHit[] = [];
  for (const hit of hits) {
    if (kept.length >= limit) break;
    if (!/^https?:\/\//i.test(hit.imageUrl)) continue;
    kept.push({ position: kept.length + 1, ...hit });
  }
  return kept;
}

/** Copies only the optional fields that are present (exactOptionalPropertyTypes-friendly). */
export function defined<T extends Record<string, unknown>>(fields: T): { [K in keyof T]?: Exclude<T[K], undefined | null> } {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined && value !== null) out[key] = value;
  return out as { [K in keyof T]?: Exclude<T[K], undefined | null> };
}
