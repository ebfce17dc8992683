import { type Env, envHttpUrl, envValue } from '../shared/env.js';
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
  const settings = visualProviderSettingsFromEnv(env);
  const world = settings.search.provider === 'local' || settings.recognition.provider === 'local' ? generateVisualWorld({ seed: settings.worldSeed }) : undefined;
  const imageSearch = searchFor(settings.search, world);
  const recognition = settings.recognition;
  const recognizer: CelebrityRecognizer =
    recognition.provider === 'rekognition'
      ? new RekognitionRecognizer({ region: recognition.region, ...(recognition.endpoint !== undefined ? { endpoint: recognition.endpoint } : {}) })
      : new LocalGlyphRecognizer(localWorld(world).people);
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

const KEY_SETTINGS = { serpapi: 'SERPAPI_API_KEY', brave: 'BRAVE_SEARCH_API_KEY', bing: 'BING_SEARCH_API_KEY' } as const;

function keyFor(env: Env, provider: keyof typeof KEY_SETTINGS): string | undefined {
  return envValue(env, KEY_SETTINGS[provider]);
}

const BASE_URL_SETTINGS = { serpapi: 'SERPAPI_BASE_URL', brave: 'BRAVE_SEARCH_BASE_URL', bing: 'BING_SEARCH_BASE_URL' } as const;

/** The image search, recognition and local world settings of the environment, validated (see `createVisualProvidersFromEnv`). */
export interface VisualProviderSettings {
  readonly search: { readonly provider: 'local' } | { readonly provider: 'serpapi' | 'brave' | 'bing'; readonly apiKey: string; readonly baseUrl?: string };
  readonly recognition: { readonly provider: 'local' } | { readonly provider: 'rekognition'; readonly region: string; readonly endpoint?: string };
  readonly worldSeed: number;
}

/**
 * Reads and validates the visual providers' settings without building anything: what
 * `createVisualProvidersFromEnv` would refuse is refused here, naming the variable.
 */
export function visualProviderSettingsFromEnv(env: Env): VisualProviderSettings {
  const searchChoice = envValue(env, 'OPENPAW_IMAGE_SEARCH') ?? (['serpapi', 'brave', 'bing'] as const).find((p) => keyFor(env, p) !== undefined) ?? 'local';
  if (!(SEARCH_PROVIDERS as readonly string[]).includes(searchChoice)) throw new Error(`OPENPAW_IMAGE_SEARCH must be one of ${SEARCH_PROVIDERS.join(', ')}, got "${searchChoice}"`);
  const recognitionChoice =
    envValue(env, 'OPENPAW_RECOGNITION') ?? (envValue(env, 'AWS_ACCESS_KEY_ID') !== undefined || envValue(env, 'OPENPAW_REKOGNITION_ENDPOINT') !== undefined ? 'rekognition' : 'local');
  if (recognitionChoice !== 'rekognition' && recognitionChoice !== 'local') throw new Error(`OPENPAW_RECOGNITION must be rekognition or local, got "${recognitionChoice}"`);
  const seedRaw = envValue(env, 'OPENPAW_VISUAL_WORLD_SEED') ?? '7';
  const worldSeed = Number(seedRaw);
  if (!Number.isSafeInteger(worldSeed)) throw new Error(`OPENPAW_VISUAL_WORLD_SEED must be an integer, got "${seedRaw}"`);
  const search = searchSettings(searchChoice as (typeof SEARCH_PROVIDERS)[number], env);
  const endpoint = envHttpUrl(env, 'OPENPAW_REKOGNITION_ENDPOINT');
  const recognition =
    recognitionChoice === 'local'
      ? ({ provider: 'local' } as const)
      : ({ provider: 'rekognition', region: envValue(env, 'AWS_REGION') ?? 'us-east-1', ...(endpoint !== undefined ? { endpoint } : {}) } as const);
  return { search, recognition, worldSeed };
}

function searchSettings(choice: (typeof SEARCH_PROVIDERS)[number], env: Env): VisualProviderSettings['search'] {
  if (choice === 'local') return { provider: 'local' };
  const apiKey = keyFor(env, choice);
  if (apiKey === undefined) throw new Error(`OPENPAW_IMAGE_SEARCH is ${choice} but its API key (${KEY_SETTINGS[choice]}) is not set`);
  const baseUrl = envHttpUrl(env, BASE_URL_SETTINGS[choice]);
  return { provider: choice, apiKey, ...(baseUrl === undefined ? {} : { baseUrl }) };
}

function searchFor(settings: VisualProviderSettings['search'], world: VisualWorld | undefined): ImageSearch {
  switch (settings.provider) {
    case 'local':
      return new LocalWorldImageSearch(localWorld(world));
    case 'serpapi':
      return new SerpApiImageSearch(config(settings));
    case 'brave':
      return new BraveImageSearch(config(settings));
    case 'bing':
      return new BingImageSearch(config(settings));
  }
}

/** The local world, generated whenever a local provider is chosen. */
function localWorld(world: VisualWorld | undefined): VisualWorld {
  if (world === undefined) throw new Error('a local visual provider needs the local world');
  return world;
}

function config(settings: { readonly apiKey: string; readonly baseUrl?: string }): { apiKey: string; baseUrl?: string } {
  return { apiKey: settings.apiKey, ...(settings.baseUrl === undefined ? {} : { baseUrl: settings.baseUrl }) };
}
