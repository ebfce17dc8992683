import { type Env, envPositiveInt, envValue } from '../shared/env.js';
import { type ProviderLogger, silentLogger } from '../shared/logger.js';
import { LocalHashedEmbedder } from './local-hashed-embedder.js';
import { OpenAiEmbedder } from './openai-embedder.js';
import type { Embedder } from './port.js';

/**
 * The embedder for a service, from env. Remote embeddings are opt-in by name, because an index is
 * only searchable with the embedder that built it (adding an LLM key must not change the vectors):
 *
 * - `OPENPAW_EMBEDDINGS_MODEL`: `openai/<model>` (OpenAI or any OpenAI-compatible server) or
 *   `local/...` (`local/hashed-ngrams-maths` adds maths tokens); unset means the local hashed n-gram embedder;
 * - `OPENPAW_EMBEDDINGS_API_KEY` (else `OPENAI_API_KEY`), `OPENPAW_EMBEDDINGS_BASE_URL` (else
 *   `OPENAI_BASE_URL`), `OPENPAW_EMBEDDINGS_DIMENSIONS` (also the local embedder's size; 384 by default).
 */
export function createEmbedderFromEnv(env: Env, options: { readonly logger?: ProviderLogger } = {}): Embedder {
  const logger = options.logger ?? silentLogger;
  const model = envValue(env, 'OPENPAW_EMBEDDINGS_MODEL');
  const dimensionsRaw = envValue(env, 'OPENPAW_EMBEDDINGS_DIMENSIONS');
  const dimensions = dimensionsRaw === undefined ? undefined : envPositiveInt(env, 'OPENPAW_EMBEDDINGS_DIMENSIONS', 384);
  if (model === undefined || model.startsWith('local/')) {
    const variant = model?.startsWith('local/hashed-ngrams-maths') === true ? 'maths' : 'ngrams';
    const embedder = new LocalHashedEmbedder({ variant, ...(dimensions !== undefined ? { dimensions } : {}) });
    logger.info({ model: embedder.model, local: true }, `embeddings: using the LOCAL hashed n-gram embedder ${embedder.model} (lexical similarity, no synonyms)`);
    return embedder;
  }
  if (!model.startsWith('openai/')) throw new Error(`OPENPAW_EMBEDDINGS_MODEL must be "openai/<model>" or "local/...", got "${model}"`);
  const apiKey = envValue(env, 'OPENPAW_EMBEDDINGS_API_KEY') ?? envValue(env, 'OPENAI_API_KEY');
  const baseURL = envValue(env, 'OPENPAW_EMBEDDINGS_BASE_URL') ?? envValue(env, 'OPENAI_BASE_URL');
  if (apiKey === undefined && baseURL === undefined) {
    throw new Error(`OPENPAW_EMBEDDINGS_MODEL is ${model} but neither OPENPAW_EMBEDDINGS_API_KEY/OPENAI_API_KEY nor a base URL is set`);
  }
  const embedder = new OpenAiEmbedder({
    model: model.slice('openai/'.length),
    ...(apiKey !== undefined ? { apiKey } : {}),
    ...(baseURL !== undefined ? { baseURL } : {}),
    ...(dimensions !== undefined ? { dimensions } : {}),
  });
  logger.info({ model: embedder.model, local: false, baseURL: baseURL ?? 'https://api.openai.com/v1' }, `embeddings: using ${embedder.model}`);
  return embedder;
}
