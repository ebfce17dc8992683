import { z } from 'zod';
import type { Clock, RandomSource } from '../shared/clock.js';
import type { RetryPolicy } from '../shared/retry.js';
import { HttpJsonClient } from './http-json.js';
import { defined, firstHits, parseResponse } from './parse-hits.js';
import type { ImageSearch, ImageSearchOptions, ImageSearchResult } from './port.js';

export interface BingImageSearchConfig {
  readonly apiKey: string;
  /** Default `https://api.bing.microsoft.com`. */
  readonly baseUrl?: string;
  readonly timeoutMs?: number;
  readonly retry?: Partial<RetryPolicy>;
  readonly clock?: Clock;
  readonly random?: RandomSource;
}

const response = z.object({
  value: z.array(
    z.object({
      name: z.string().optional(),
      contentUrl: z.string().optional(),
      hostPageUrl: z.string().optional(),
      thumbnailUrl: z.string().optional(),
      width: z.number().optional(),
      height: z.number().optional(),
    }),
  ),
});

/**
 * Bing Image Search v7 (`GET /v7.0/images/search?q=...&count=N`, key in `Ocp-Apim-Subscription-Key`):
 * `value[].contentUrl` is the full image, `hostPageUrl` its page.
 */
export class BingImageSearch implements ImageSearch {
  readonly provider = 'bing/images';
  readonly local = false;
  private readonly http: HttpJsonClient;

  constructor(private readonly config: BingImageSearchConfig) {
    this.http = new HttpJsonClient({
      provider: 'bing',
      secrets: [config.apiKey],
      ...defined({ timeoutMs: config.timeoutMs, retry: config.retry, clock: config.clock, random: config.random }),
    });
  }

  async search(query: string, options: ImageSearchOptions): Promise<ImageSearchResult> {
    const url = new URL('/v7.0/images/search', this.config.baseUrl ?? 'https://api.bing.microsoft.com');
    url.searchParams.set('q', query);
    url.searchParams.set('count', String(Math.min(150, Math.max(1, options.limit))));
    url.searchParams.set('safeSearch', 'Strict');
    const body = parseResponse('bing', response, await this.http.getJson(url, { 'ocp-apim-subscription-key': this.config.apiKey }, options.signal));
    const hits = firstHits(
      body.value.map((r) => ({
        imageUrl: r.contentUrl ?? '',
        ...defined({ sourcePageUrl: r.hostPageUrl, title: r.name, thumbnailUrl: r.thumbnailUrl, width: r.width, height: r.height }),
      })),
      options.limit,
    );
    return { provider: this.provider, local: false, query, hits };
  }
}
