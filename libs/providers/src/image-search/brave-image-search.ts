import { z } from 'zod';
import type { Clock, RandomSource } from '../shared/clock.js';
import type { RetryPolicy } from '../shared/retry.js';
import { HttpJsonClient } from './http-json.js';
import { defined, firstHits, parseResponse } from './parse-hits.js';
import type { ImageSearch, ImageSearchOptions, ImageSearchResult } from './port.js';

export interface BraveImageSearchConfig {
  readonly apiKey: string;
  /** Default `https://api.search.brave.com`. */
  readonly baseUrl?: string;
  readonly timeoutMs?: number;
  readonly retry?: Partial<RetryPolicy>;
  readonly clock?: Clock;
  readonly random?: RandomSource;
}

const response = z.object({
  results: z.array(
    z.object({
      title: z.string().optional(),
      url: z.string().optional(),
      thumbnail: z.object({ src: z.string().optional() }).optional(),
      properties: z.object({ url: z.string().optional(), width: z.number().optional(), height: z.number().optional() }).optional(),
    }),
  ),
});

/**
 * Brave Image Search (`GET /res/v1/images/search?q=...&count=N`, key in `X-Subscription-Token`):
 * `results[].properties.url` is the full image, `url` the page it is on.
 */
export class BraveImageSearch implements ImageSearch {
  readonly provider = 'brave/images';
  readonly local = false;
  private readonly http: HttpJsonClient;

  constructor(private readonly config: BraveImageSearchConfig) {
    this.http = new HttpJsonClient({
      provider: 'brave',
      secrets: [config.apiKey],
      ...defined({ timeoutMs: config.timeoutMs, retry: config.retry, clock: config.clock, random: config.random }),
    });
  }

  async search(query: string, options: ImageSearchOptions): Promise<ImageSearchResult> {
    const url = new URL('/res/v1/images/search', this.config.baseUrl ?? 'https://api.search.brave.com');
    url.searchParams.set('q', query);
    url.searchParams.set('count', String(Math.min(200, Math.max(1, options.limit))));
    url.searchParams.set('safesearch', 'strict');
    const body = parseResponse('brave', response, await this.http.getJson(url, { 'x-subscription-token': this.config.apiKey }, options.signal));
    const hits = firstHits(
      body.results.map((r) => ({
        imageUrl: r.properties?.url ?? '',
        ...defined({ sourcePageUrl: r.url, title: r.title, thumbnailUrl: r.thumbnail?.src, width: r.properties?.width, height: r.properties?.height }),
      })),
      options.limit,
    );
    return { provider: this.provider, local: false, query, hits };
  }
}
