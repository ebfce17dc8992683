import { type Env, envHttpUrl, envPositiveInt, envValue } from '../shared/env.js';
import { type ProviderLogger, silentLogger } from '../shared/logger.js';
import { LocalHashedEmbedder, MIN_LOCAL_EMBEDDING_DIMENSIONS } from './local-hashed-embedder.js';
import { OpenAiEmbedder } from './openai-embedder.js';
import type { Embedder } from './port.js';

/** The embedder settings of the environment, validated (see `createEmbedderFromEnv` for the variables). */
export type EmbedderSettings =
  | { readonly kind: 'local'; readonly variant: 'maths' | 'ngrams'; readonly dimensions?: number }
  | { readonly kind: 'openai'; readonly model: string; readonly apiKey?: string; readonly baseURL?: string; readonly dimensions?: number };

/**
 * Reads and validates the embedder settings without building anything: what `createEmbedderFromEnv`
 * would refuse is refused here, naming the variable, so a service can check them before it starts.
 */
export function embedderSettingsFromEnv(env: Env): EmbedderSettings {
  const model = envValue(env, 'OPENPAW_EMBEDDINGS_MODEL');
  const dimensions = envValue(env, 'OPENPAW_EMBEDDINGS_DIMENSIONS') === undefined ? {} : { dimensions: envPositiveInt(env, 'OPENPAW_EMBEDDINGS_DIMENSIONS', 384) };
  if (model === undefined || model.startsWith('local/')) {
    if (dimensions.dimensions !== undefined && dimensions.dimensions < MIN_LOCAL_EMBEDDING_DIMENSIONS) {
      throw new Error(`OPENPAW_EMBEDDINGS_DIMENSIONS must be at least ${MIN_LOCAL_EMBEDDING_DIMENSIONS} for the local embedder, got ${dimensions.dimensions}`);
    }
    return { kind: 'local', variant: model?.startsWith('local/hashed-ngrams-maths') === true ? 'maths' : 'ngrams', ...dimensions };
  }
  if (!model.startsWith('openai/')) throw new Error(`OPENPAW_EMBEDDINGS_MODEL must be "openai/<model>" or "local/...", got "${model}"`);
  const apiKey = envValue(env, 'OPENPAW_EMBEDDINGS_API_KEY') ?? envValue(env, 'OPENAI_API_KEY');
  const baseURL = envHttpUrl(env, 'OPENPAW_EMBEDDINGS_BASE_URL') ?? envHttpUrl(env, 'OPENAI_BASE_URL');
  if (apiKey === undefined && baseURL === undefined) {
    throw new Error(`OPENPAW_EMBEDDINGS_MODEL is ${model} but neither OPENPAW_EMBEDDINGS_API_KEY/OPENAI_API_KEY nor a base URL is set`);
  }
  return { kind: 'openai', model: model.slice('openai/'.length), ...(apiKey !== undefined ? { apiKey } : {}), ...(baseURL !== undefined ? { baseURL } : {}), ...dimensions };
}

/**
 * The embedder for a service, from env (validated by `embedderSettingsFromEnv`). Remote embeddings are
 * opt-in by name, because an index is only searchable with the embedder that built it (adding an LLM
 * key must not change the vectors):
 *
 * - `OPENPAW_EMBEDDINGS_MODEL`: `openai/<model>` (OpenAI or any OpenAI-compatible server) or
 *   `local/...` (`local/hashed-ngrams-maths` adds maths tokens); unset means the local hashed n-gram embedder;
 * - `OPENPAW_EMBEDDINGS_API_KEY` (else `OPENAI_API_KEY`), `OPENPAW_EMBEDDINGS_BASE_URL` (else
 *   `OPENAI_BASE_URL`), `OPENPAW_EMBEDDINGS_DIMENSIONS` (also the local embedder's size; 384 by default).
 */
export function createEmbedderFromEnv(env: Env, options: { readonly logger?: ProviderLogger } = {}): Embedder {
  const logger = options.logger ?? silentLogger;
  const settings = embedderSettingsFromEnv(env);
  if (settings.kind === 'local') {
    const embedder = new LocalHashedEmbedder({ variant: settings.variant, ...(settings.dimensions !== undefined ? { dimensions: settings.dimensions } : {}) });
    logger.info({ model: embedder.model, local: true }, `embeddings: using the LOCAL hashed n-gram embedder ${embedder.model} (lexical similarity, no synonyms)`);
    return embedder;
  }
  const embedder = new OpenAiEmbedder({
    model: settings.model,
    ...(settings.apiKey !== undefined ? { apiKey: settings.apiKey } : {}),
    ...(settings.baseURL !== undefined ? { baseURL: settings.baseURL } : {}),
    ...(settings.dimensions !== undefined ? { dimensions: settings.dimensions } : {}),
  });
  logger.info({ model: embedder.model, local: false, baseURL: settings.baseURL ?? 'https://api.openai.com/v1' }, `embeddings: using ${embedder.model}`);
  return embedder;
}
