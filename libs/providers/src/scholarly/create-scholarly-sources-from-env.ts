import { KEYLESS_SCHOLARLY_SOURCES } from '@openpaw/contracts';
import { type Clock, type RandomSource, systemClock } from '../shared/clock.js';
import { type Env, envHttpUrl, envList, envPositiveInt, envValue } from '../shared/env.js';
import { type ProviderLogger, silentLogger } from '../shared/logger.js';
import { ArxivSource } from './arxiv-source.js';
import { CrossrefSource } from './crossref-source.js';
import { OpenAlexSource } from './openalex-source.js';
import type { ScholarlySource, ScholarlySourceName } from './port.js';
import { ReachabilityCheckedSource, type ReachabilityOptions } from './reachability-checked-source.js';
import type { SharedResponses } from './response-cache.js';
import { SemanticScholarSource } from './semantic-scholar-source.js';
import { SerpApiScholarSource } from './serpapi-scholar-source.js';
import type { ScholarlySourceConfig } from './source-config.js';

export type RemoteScholarlySourceName = Exclude<ScholarlySourceName, 'library'>;
export const REMOTE_SCHOLARLY_SOURCES: readonly RemoteScholarlySourceName[] = ['openalex', 'arxiv', 'crossref', 'semantic_scholar', 'serpapi_scholar'];

export interface ScholarlySourcesFactoryOptions {
  readonly logger?: ProviderLogger;
  readonly clock?: Clock;
  readonly random?: RandomSource;
  /** Request starts shared across the service's replicas (see `SharedStartSlots`); without, each process spaces its own. */
  readonly sharedSlots?: ScholarlySourceConfig['sharedSlots'];
  /** Search results shared across the service's replicas (see `SharedResponseCache`), behind each process's own; without, each process caches its own. */
  readonly sharedResponses?: SharedResponses;
}

/** The keyless sources searched when `OPENPAW_SCHOLARLY_SOURCES` is not set: no account, no key needed. */
export const DEFAULT_SCHOLARLY_SOURCES: readonly RemoteScholarlySourceName[] = KEYLESS_SCHOLARLY_SOURCES;

/** The scholarly settings of the environment, validated (see `createScholarlySourcesFromEnv` for the variables). */
export interface ScholarlySettings {
  readonly sources: readonly RemoteScholarlySourceName[];
  readonly reachability: Pick<ReachabilityOptions, 'probeTimeoutMs' | 'reachableTtlMs' | 'unreachableTtlMs' | 'responseTtlMs'>;
  readonly timeoutMs: number;
  /** `OPENPAW_<SOURCE>_BASE_URL` of each source that has one. */
  readonly baseUrls: Readonly<Partial<Record<RemoteScholarlySourceName, string>>>;
}

/**
 * Reads and validates the scholarly settings without building anything: what
 * `createScholarlySourcesFromEnv` would refuse is refused here, naming the variable.
 */
export function scholarlySettingsFromEnv(env: Env): ScholarlySettings {
  const requested = envValue(env, 'OPENPAW_SCHOLARLY_SOURCES') === undefined ? [...DEFAULT_SCHOLARLY_SOURCES] : envList(env, 'OPENPAW_SCHOLARLY_SOURCES').map((s) => s.toLowerCase());
  const unknown = requested.filter((r) => r !== 'all' && r !== 'none' && r !== 'library' && !(REMOTE_SCHOLARLY_SOURCES as readonly string[]).includes(r));
  if (unknown.length > 0) throw new Error(`OPENPAW_SCHOLARLY_SOURCES names unknown sources: ${unknown.join(', ')} (known: ${REMOTE_SCHOLARLY_SOURCES.join(', ')}, library, all, none)`);
  if (requested.includes('none') && requested.length > 1) throw new Error(`OPENPAW_SCHOLARLY_SOURCES: "none" cannot be combined with sources (got ${requested.join(',')})`);
  const probeTtlMs = envPositiveInt(env, 'OPENPAW_SCHOLARLY_PROBE_TTL_MS', 600_000);
  const baseUrls: Partial<Record<RemoteScholarlySourceName, string>> = {};
  for (const name of REMOTE_SCHOLARLY_SOURCES) {
    const url = envHttpUrl(env, `OPENPAW_${name.toUpperCase()}_BASE_URL`);
    if (url !== undefined) baseUrls[name] = url;
  }
  return {
    sources: requested.includes('all') ? REMOTE_SCHOLARLY_SOURCES : REMOTE_SCHOLARLY_SOURCES.filter((n) => requested.includes(n)),
    reachability: {
      probeTimeoutMs: envPositiveInt(env, 'OPENPAW_SCHOLARLY_PROBE_TIMEOUT_MS', 3_000),
      reachableTtlMs: probeTtlMs,
      unreachableTtlMs: Math.min(probeTtlMs, 60_000),
      responseTtlMs: envPositiveInt(env, 'OPENPAW_SCHOLARLY_CACHE_TTL_MS', 600_000),
    },
    timeoutMs: envPositiveInt(env, 'OPENPAW_SCHOLARLY_TIMEOUT_MS', 15_000),
    baseUrls,
  };
}

/**
 * The remote scholarly sources a service may search, from env, besides the user's own library (owned
 * by the research service). `OPENPAW_SCHOLARLY_SOURCES` (comma-separated, `all`, or `none`) picks them;
 * unset, the keyless ones (`DEFAULT_SCHOLARLY_SOURCES`: OpenAlex, arXiv, Crossref) are on, so a new
 * user finds papers out of the box. `none` searches the library only (tests, offline demos).
 *
 * Every source is wrapped in a `ReachabilityCheckedSource`: a short probe decides whether it is
 * searched, and a source that cannot be reached is reported as such, per source, at once.
 *
 * - `OPENPAW_SCHOLARLY_MAILTO`: polite-pool address for OpenAlex and Crossref (the operator's own; none
 *   is invented: without it both are used through their common pools, and the start log says so);
 * - `OPENALEX_API_KEY`, `CROSSREF_PLUS_API_TOKEN`, `SEMANTIC_SCHOLAR_API_KEY` (optional),
 *   `SERPAPI_API_KEY` (required for `serpapi_scholar`; without it that source is skipped, with a warning);
 * - `OPENPAW_<SOURCE>_BASE_URL` (e.g. `OPENPAW_OPENALEX_BASE_URL`) to point a source elsewhere;
 * - `OPENPAW_SCHOLARLY_TIMEOUT_MS` per request (default 15000);
 * - `OPENPAW_SCHOLARLY_PROBE_TIMEOUT_MS` (default 3000), `OPENPAW_SCHOLARLY_PROBE_TTL_MS` (how long
 *   "reachable" holds, default 600000; "unreachable" holds at most 60000);
 * - `OPENPAW_SCHOLARLY_CACHE_TTL_MS` (identical searches answered from memory, and from the replicas'
 *   shared cache when `sharedResponses` is given, default 600000).
 */
export function createScholarlySourcesFromEnv(env: Env, options: ScholarlySourcesFactoryOptions = {}): ScholarlySource[] {
  const logger = options.logger ?? silentLogger;
  const settings = scholarlySettingsFromEnv(env);
  const names = settings.sources;
  const reachability: ReachabilityOptions = {
    ...settings.reachability,
    maxCachedResponses: 500,
    clock: options.clock ?? systemClock,
    ...(options.sharedResponses !== undefined ? { sharedResponses: options.sharedResponses } : {}),
  };
  const common = {
    timeoutMs: settings.timeoutMs,
    ...(options.clock !== undefined ? { clock: options.clock } : {}),
    ...(options.random !== undefined ? { random: options.random } : {}),
    ...(options.sharedSlots !== undefined ? { sharedSlots: options.sharedSlots } : {}),
  };
  const base = (name: RemoteScholarlySourceName): { baseUrl?: string } => {
    const url = settings.baseUrls[name];
    return url === undefined ? {} : { baseUrl: url };
  };
  const optional = <K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> => (value === undefined ? {} : ({ [key]: value } as Record<K, string>));
  const mailto = envValue(env, 'OPENPAW_SCHOLARLY_MAILTO');
  const checked = (source: ScholarlySource & Required<Pick<ScholarlySource, 'probe'>>): ScholarlySource => new ReachabilityCheckedSource(source, reachability);
  if (mailto === undefined && names.some((n) => n === 'openalex' || n === 'crossref')) {
    logger.info({ sources: names.filter((n) => n === 'openalex' || n === 'crossref') }, 'scholarly: OPENPAW_SCHOLARLY_MAILTO is not set: OpenAlex and Crossref are used through their common pools (set it to your address to join their polite pools)');
  }
  const sources: ScholarlySource[] = [];
  for (const name of names) {
    switch (name) {
      case 'openalex':
        sources.push(checked(new OpenAlexSource({ ...common, ...base(name), ...optional('mailto', mailto), ...optional('apiKey', envValue(env, 'OPENALEX_API_KEY')) })));
        break;
      case 'arxiv':
        sources.push(checked(new ArxivSource({ ...common, ...base(name) })));
        break;
      case 'crossref':
        sources.push(checked(new CrossrefSource({ ...common, ...base(name), ...optional('mailto', mailto), ...optional('plusToken', envValue(env, 'CROSSREF_PLUS_API_TOKEN')) })));
        break;
      case 'semantic_scholar':
        sources.push(new SemanticScholarSource({ ...common, ...base(name), ...optional('apiKey', envValue(env, 'SEMANTIC_SCHOLAR_API_KEY')) }));
        break;
      case 'serpapi_scholar': {
        const apiKey = envValue(env, 'SERPAPI_API_KEY');
        if (apiKey === undefined) {
          logger.warn({ source: name }, 'scholarly: serpapi_scholar requested but SERPAPI_API_KEY is not set; skipped');
          break;
        }
        sources.push(new SerpApiScholarSource({ ...common, ...base(name), apiKey }));
        break;
      }
    }
  }
  logger.info(
    { sources: sources.map((s) => s.name), local: sources.length === 0 },
    sources.length === 0 ? 'scholarly: no remote sources (LOCAL library only: OPENPAW_SCHOLARLY_SOURCES=none)' : `scholarly: remote sources ${sources.map((s) => s.name).join(', ')} plus the local library`,
  );
  return sources;
}
