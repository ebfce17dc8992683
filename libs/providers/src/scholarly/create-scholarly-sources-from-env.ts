import type { Clock, RandomSource } from '../shared/clock.js';
import { type Env, envList, envPositiveInt, envValue } from '../shared/env.js';
import { type ProviderLogger, silentLogger } from '../shared/logger.js';
import { ArxivSource } from './arxiv-source.js';
import { CrossrefSource } from './crossref-source.js';
import { OpenAlexSource } from './openalex-source.js';
import type { ScholarlySource, ScholarlySourceName } from './port.js';
import { SemanticScholarSource } from './semantic-scholar-source.js';
import { SerpApiScholarSource } from './serpapi-scholar-source.js';

export type RemoteScholarlySourceName = Exclude<ScholarlySourceName, 'library'>;
export const REMOTE_SCHOLARLY_SOURCES: readonly RemoteScholarlySourceName[] = ['openalex', 'arxiv', 'crossref', 'semantic_scholar', 'serpapi_scholar'];

export interface ScholarlySourcesFactoryOptions {
  readonly logger?: ProviderLogger;
  readonly clock?: Clock;
  readonly random?: RandomSource;
}

/**
 * The remote scholarly sources a service may search, from env. None by default: the local default is
 * the user's own library (owned by the research service), so an offline laptop searches something
 * real without network or accounts. `OPENPAW_SCHOLARLY_SOURCES` (comma-separated, or `all`) turns
 * remote sources on:
 *
 * - `OPENPAW_SCHOLARLY_MAILTO`: polite-pool address for OpenAlex and Crossref;
 * - `OPENALEX_API_KEY`, `CROSSREF_PLUS_API_TOKEN`, `SEMANTIC_SCHOLAR_API_KEY` (optional),
 *   `SERPAPI_API_KEY` (required for `serpapi_scholar`; without it that source is skipped, with a warning);
 * - `OPENPAW_<SOURCE>_BASE_URL` (e.g. `OPENPAW_OPENALEX_BASE_URL`) to point a source elsewhere;
 * - `OPENPAW_SCHOLARLY_TIMEOUT_MS` per request (default 15000).
 */
export function createScholarlySourcesFromEnv(env: Env, options: ScholarlySourcesFactoryOptions = {}): ScholarlySource[] {
  const logger = options.logger ?? silentLogger;
  const requested = envList(env, 'OPENPAW_SCHOLARLY_SOURCES').map((s) => s.toLowerCase());
  const names = requested.includes('all') ? REMOTE_SCHOLARLY_SOURCES : REMOTE_SCHOLARLY_SOURCES.filter((n) => requested.includes(n));
  const unknown = requested.filter((r) => r !== 'all' && r !== 'library' && !(REMOTE_SCHOLARLY_SOURCES as readonly string[]).includes(r));
  if (unknown.length > 0) throw new Error(`OPENPAW_SCHOLARLY_SOURCES names unknown sources: ${unknown.join(', ')} (known: ${REMOTE_SCHOLARLY_SOURCES.join(', ')}, library, all)`);
  const common = {
    timeoutMs: envPositiveInt(env, 'OPENPAW_SCHOLARLY_TIMEOUT_MS', 15_000),
    ...(options.clock !== undefined ? { clock: options.clock } : {}),
    ...(options.random !== undefined ? { random: options.random } : {}),
  };
  const base = (name: string): { baseUrl?: string } => {
    const url = envValue(env, `OPENPAW_${name.toUpperCase()}_BASE_URL`);
    return url === undefined ? {} : { baseUrl: url };
  };
  const optional = <K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> => (value === undefined ? {} : ({ [key]: value } as Record<K, string>));
  const mailto = envValue(env, 'OPENPAW_SCHOLARLY_MAILTO');
  const sources: ScholarlySource[] = [];
  for (const name of names) {
    switch (name) {
      case 'openalex':
        sources.push(new OpenAlexSource({ ...common, ...base(name), ...optional('mailto', mailto), ...optional('apiKey', envValue(env, 'OPENALEX_API_KEY')) }));
        break;
      case 'arxiv':
        sources.push(new ArxivSource({ ...common, ...base(name) }));
        break;
      case 'crossref':
        sources.push(new CrossrefSource({ ...common, ...base(name), ...optional('mailto', mailto), ...optional('plusToken', envValue(env, 'CROSSREF_PLUS_API_TOKEN')) }));
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
    sources.length === 0 ? 'scholarly: no remote sources (LOCAL library only; set OPENPAW_SCHOLARLY_SOURCES to add some)' : `scholarly: remote sources ${sources.map((s) => s.name).join(', ')} plus the local library`,
  );
  return sources;
}
