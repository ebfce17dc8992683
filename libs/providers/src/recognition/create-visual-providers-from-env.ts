import { type Env, envValue } from '../shared/env.js';
import { type ProviderLogger, silentLogger } from '../shared/logger.js';
import { BingImageSearch } from '../image-search/bing-image-search.js';
import { BraveImageSearch } from '../image-search/brave-image-search.js';
import type { ImageSearch } from '../image-search/port.js';
import { SerpApiImageSearch } from '../image-search/serpapi-image-search.js';
import { LocalGlyphRecognizer } from '../visual-world/glyph-recognizer.js';
import { LocalWorldImageSearch } from '../visual-world/local-image-search.js';
import { LocalWorldImageFetcher } from '../visual-world/local-world-fetcher.js';
import { generateVisualWorld, type VisualWorld } from '../visual-world/world.js';
import { type ImageFetcher, SafeImageFetcher } from './image-fetcher.js';
import type { CelebrityRecognizer } from './port.js';
import { RekognitionRecognizer } from './rekognition-recognizer.js';

export interface VisualProviders {
  readonly imageSearch: ImageSearch;
  readonly recognizer: CelebrityRecognizer;
  readonly imageFetcher: ImageFetcher;
  /** The local world, when either local default is in use. */
  readonly world?: VisualWorld;
}

const SEARCH_PROVIDERS = ['serpapi', 'brave', 'bing', 'local'] as const;

/**
 * Image search, celebrity recognition and the image fetcher for visual-search, from env:
 *
 * - `OPENPAW_IMAGE_SEARCH`: `serpapi` | `brave` | `bing` | `local`; unset means the first with a key
 *   (`SERPAPI_API_KEY`, `BRAVE_SEARCH_API_KEY`, `BING_SEARCH_API_KEY`, in that order), else local.
 *   `SERPAPI_BASE_URL`, `BRAVE_SEARCH_BASE_URL`, `BING_SEARCH_BASE_URL` point an adapter elsewhere.
 * - `OPENPAW_RECOGNITION`: `rekognition` | `local`; unset means Rekognition when `AWS_ACCESS_KEY_ID`
 *   or `OPENPAW_REKOGNITION_ENDPOINT` is set, else local. `AWS_REGION` (default us-east-1).
 * - `OPENPAW_VISUAL_WORLD_SEED`: the local world's seed (default 7).
 *
 * Local defaults are logged as LOCAL: a generated world of invented people; its photos are served
 * from `local-world://` URLs, every other URL through the platform's safe fetcher.
 */
export function createVisualProvidersFromEnv(
  env: Env,
  options: {
    readonly logger?: ProviderLogger;
    /** Fetch images from 127.0.0.1 too: only a test entrypoint (local wire servers) sets it; no variable does. */
    readonly allowLoopbackImageHosts?: boolean;
  } = {},
): VisualProviders {
  const logger = options.logger ?? silentLogger;
  const searchChoice = envValue(env, 'OPENPAW_IMAGE_SEARCH') ?? (['serpapi', 'brave', 'bing'] as const).find((p) => keyFor(env, p) !== undefined) ?? 'local';
  if (!(SEARCH_PROVIDERS as readonly string[]).includes(searchChoice)) throw new Error(`OPENPAW_IMAGE_SEARCH must be one of ${SEARCH_PROVIDERS.join(', ')}, got "${searchChoice}"`);
  const recognitionChoice =
    envValue(env, 'OPENPAW_RECOGNITION') ?? (envValue(env, 'AWS_ACCESS_KEY_ID') !== undefined || envValue(env, 'OPENPAW_REKOGNITION_ENDPOINT') !== undefined ? 'rekognition' : 'local');
  if (recognitionChoice !== 'rekognition' && recognitionChoice !== 'local') throw new Error(`OPENPAW_RECOGNITION must be rekognition or local, got "${recognitionChoice}"`);

  const world = searchChoice === 'local' || recognitionChoice === 'local' ? generateVisualWorld({ seed: Number(envValue(env, 'OPENPAW_VISUAL_WORLD_SEED') ?? 7) }) : undefined;
  const imageSearch = searchFor(searchChoice as (typeof SEARCH_PROVIDERS)[number], env, world);
  const recognizer: CelebrityRecognizer =
    recognitionChoice === 'local' && world !== undefined
      ? new LocalGlyphRecognizer(world.people)
      : new RekognitionRecognizer({
          region: envValue(env, 'AWS_REGION') ?? 'us-east-1',
          ...(envValue(env, 'OPENPAW_REKOGNITION_ENDPOINT') !== undefined ? { endpoint: envValue(env, 'OPENPAW_REKOGNITION_ENDPOINT') } : {}),
        });
  const safe = new SafeImageFetcher(options.allowLoopbackImageHosts === true ? { allowAddressClasses: ['loopback'] } : {});
  const imageFetcher = world === undefined ? safe : new LocalWorldImageFetcher(world, safe);
  for (const [what, provider, local] of [
    ['image search', imageSearch.provider, imageSearch.local],
    ['celebrity recognition', recognizer.provider, recognizer.local],
  ] as const) {
    logger.info({ provider, local }, local ? `${what}: using the LOCAL ${provider} over a generated world of invented people (seed ${world?.seed})` : `${what}: using ${provider}`);
  }
  return { imageSearch, recognizer, imageFetcher, ...(world !== undefined ? { world } : {}) };
}

function keyFor(env: Env, provider: 'serpapi' | 'brave' | 'bing'): string | undefined {
  return envValue(env, { serpapi: 'SERPAPI_API_KEY', brave: 'BRAVE_SEARCH_API_KEY', bing: 'BING_SEARCH_API_KEY' }[provider]);
}

function searchFor(choice: (typeof SEARCH_PROVIDERS)[number], env: Env, world: VisualWorld | undefined): ImageSearch {
  if (choice === 'local') {
    if (world === undefined) throw new Error('the local image search needs the local world');
    return new LocalWorldImageSearch(world);
  }
  const apiKey = keyFor(env, choice);
  if (apiKey === undefined) throw new Error(`OPENPAW_IMAGE_SEARCH is ${choice} but its API key is not set`);
  switch (choice) {
    case 'serpapi':
      return new SerpApiImageSearch({ apiKey, ...baseUrl(env, 'SERPAPI_BASE_URL') });
    case 'brave':
      return new BraveImageSearch({ apiKey, ...baseUrl(env, 'BRAVE_SEARCH_BASE_URL') });
    case 'bing':
      return new BingImageSearch({ apiKey, ...baseUrl(env, 'BING_SEARCH_BASE_URL') });
  }
}

function baseUrl(env: Env, name: string): { baseUrl?: string } {
  const value = envValue(env, name);
  return value === undefined ? {} : { baseUrl: value };
}
