import { z } from 'zod';
import type { Clock, RandomSource } from '../shared/clock.js';
import type { RetryPolicy } from '../shared/retry.js';
import { ProviderError } from '../llm/errors.js';
import { HttpJsonClient } from './http-json.js';
import { defined, firstHits, parseResponse } from './parse-hits.js';
import type { ImageSearch, ImageSearchOptions, ImageSearchResult } from './port.js';

export interface SerpApiImageSearchConfig {
  readonly apiKey: string;
  /** Default `https://serpapi.com`. */
  readonly baseUrl?: string;
  readonly timeoutMs?: number;
  readonly retry?: Partial<RetryPolicy>;
  readonly clock?: Clock;
  readonly random?: RandomSource;
}

const response = z.object({
  search_metadata: z.object({ status: z.string().optional() }).optional(),
  error: z.string().optional(),
  images_results: z
    .array(
      z.object({
        original: z.string().optional(),
        thumbnail: z.string().optional(),
        link: z.string().optional(),
        title: z.string().optional(),
        original_width: z.number().optional(),
        original_height: z.number().optional(),
      }),
    )
    .optional(),
});

/**
 * Google Images through SerpApi (`GET /search.json?engine=google_images&q=...&api_key=...`, results in
 * `images_results[]`: `original` is the full image, `link` its page). SerpApi answers an empty result
 * set with HTTP 200 and an `error` text, which is an empty result here, not a failure.
 */
export class SerpApiImageSearch implements ImageSearch {
  readonly provider = 'serpapi/google_images';
  readonly local = false;
  private readonly http: HttpJsonClient;

  constructor(private readonly config: SerpApiImageSearchConfig) {
    this.http = new HttpJsonClient({ provider: 'serpapi', secrets: [config.apiKey], ...pick(config) });
  }

  async search(query: string, options: ImageSearchOptions): Promise<ImageSearchResult> {
    const url = new URL('/search.json', this.config.baseUrl ?? 'https://serpapi.com');
    url.searchParams.set('engine', 'google_images');
    url.searchParams.set('q', query);
    url.searchParams.set('api_key', this.config.apiKey);
    const body = parseResponse('serpapi', response, await this.http.getJson(url, {}, options.signal));
    if (body.images_results === undefined && body.error !== undefined) {
      if (!/hasn't returned any results/i.test(body.error)) throw new ProviderError('bad_request', 'serpapi', body.error, { secrets: [this.config.apiKey] });
      return { provider: this.provider, local: false, query, hits: [] };
    }
    const hits = firstHits(
      (body.images_results ?? []).map((r) => ({
        imageUrl: r.original ?? '',
        ...defined({ sourcePageUrl: r.link, title: r.title, thumbnailUrl: r.thumbnail, width: r.original_width, height: r.original_height }),
      })),
      options.limit,
    );
    return { provider: this.provider, local: false, query, hits };
  }
}

function pick(config: { timeoutMs?: number; retry?: Partial<RetryPolicy>; clock?: Clock; random?: RandomSource }) {
  return defined({ timeoutMs: config.timeoutMs, retry: config.retry, clock: config.clock, random: config.random });
}
