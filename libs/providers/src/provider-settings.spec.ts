import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertBlobStoreUsable, blobSettingsFromEnv } from './blob/create-blob-store-from-env.js';
import { createEmbedderFromEnv, embedderSettingsFromEnv } from './embeddings/create-embedder-from-env.js';
import { createLlmFromEnv, llmSettingsFromEnv } from './llm/create-llm-from-env.js';
import { ocrRemoteSettingsFromEnv } from './ocr/create-ocr-reader.js';
import { assertProviderSettings } from './provider-settings.js';
import { createVisualProvidersFromEnv, visualProviderSettingsFromEnv } from './recognition/create-visual-providers-from-env.js';
import { createScholarlySourcesFromEnv, scholarlySettingsFromEnv } from './scholarly/create-scholarly-sources-from-env.js';

describe('provider settings, validated before anything is built', () => {
  it.each([
    ['OPENPAW_LLM_MODEL', { OPENPAW_LLM_MODEL: 'mistral/large' }, /OPENPAW_LLM_MODEL: unknown provider "mistral"/],
    ['OPENPAW_LLM_MODEL', { OPENPAW_LLM_MODEL: 'gpt-4o' }, /OPENPAW_LLM_MODEL: model id must be "provider\/model"/],
    ['OPENPAW_LLM_FALLBACK_MODELS', { OPENPAW_LLM_FALLBACK_MODELS: 'openai/gpt-4o-mini,cohere/command' }, /OPENPAW_LLM_FALLBACK_MODELS: unknown provider "cohere"/],
    ['OPENAI_BASE_URL', { OPENAI_BASE_URL: 'localhost:11434/v1' }, /OPENAI_BASE_URL must be an http\(s\) URL, got "localhost:11434\/v1"/],
    ['ANTHROPIC_BASE_URL', { ANTHROPIC_BASE_URL: 'not a url' }, /ANTHROPIC_BASE_URL must be an http\(s\) URL/],
    ['OPENPAW_LLM_TIMEOUT_MS', { OPENPAW_LLM_TIMEOUT_MS: '0' }, /OPENPAW_LLM_TIMEOUT_MS must be a positive integer/],
    ['OPENPAW_LLM_PRICES', { OPENPAW_LLM_PRICES: '{' }, /OPENPAW_LLM_PRICES is not JSON/],
  ])('the LLM settings refuse a bad %s, and so does the factory, by the same reader', (_name, env, message) => {
    expect(() => llmSettingsFromEnv(env)).toThrow(message);
    expect(() => createLlmFromEnv(env)).toThrow(message);
  });

  it('reads valid LLM settings as the factory uses them', () => {
    const settings = llmSettingsFromEnv({ ANTHROPIC_API_KEY: 'sk-ant', OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' });
    expect(settings).toMatchObject({ configured: ['openai', 'anthropic'], defaultModel: 'openai/gpt-4o-mini', fallbackModels: ['anthropic/claude-haiku-4-5'] });
    expect(createLlmFromEnv({ ANTHROPIC_API_KEY: 'sk-ant', OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' }).describe()).toMatchObject({
      defaultModel: settings.defaultModel,
      fallbackModels: settings.fallbackModels,
    });
  });

  it('refuses bad embedder settings, naming the variable, as the factory does', () => {
    for (const [env, message] of [
      [{ OPENPAW_EMBEDDINGS_MODEL: 'cohere/embed' }, /OPENPAW_EMBEDDINGS_MODEL must be "openai\/<model>" or "local\/..."/],
      [{ OPENPAW_EMBEDDINGS_DIMENSIONS: '4' }, /OPENPAW_EMBEDDINGS_DIMENSIONS must be at least 8/],
      [{ OPENPAW_EMBEDDINGS_MODEL: 'openai/text-embedding-3-small', OPENPAW_EMBEDDINGS_BASE_URL: 'ftp://example.com' }, /OPENPAW_EMBEDDINGS_BASE_URL must be an http\(s\) URL/],
    ] as const) {
      expect(() => embedderSettingsFromEnv(env)).toThrow(message);
      expect(() => createEmbedderFromEnv(env)).toThrow(message);
    }
    expect(embedderSettingsFromEnv({ OPENPAW_EMBEDDINGS_MODEL: 'local/hashed-ngrams-maths' })).toEqual({ kind: 'local', variant: 'maths' });
  });

  it('refuses bad scholarly, visual, blob and OCR settings, naming the variable', () => {
    expect(() => scholarlySettingsFromEnv({ OPENPAW_SCHOLARLY_SOURCES: 'openalex,scopus' })).toThrow(/OPENPAW_SCHOLARLY_SOURCES names unknown sources: scopus/);
    expect(() => createScholarlySourcesFromEnv({ OPENPAW_ARXIV_BASE_URL: 'export.arxiv.org' })).toThrow(/OPENPAW_ARXIV_BASE_URL must be an http\(s\) URL/);
    expect(() => visualProviderSettingsFromEnv({ OPENPAW_IMAGE_SEARCH: 'google' })).toThrow(/OPENPAW_IMAGE_SEARCH must be one of serpapi, brave, bing, local/);
    expect(() => createVisualProvidersFromEnv({ OPENPAW_IMAGE_SEARCH: 'brave' })).toThrow(/OPENPAW_IMAGE_SEARCH is brave but its API key \(BRAVE_SEARCH_API_KEY\) is not set/);
    expect(() => visualProviderSettingsFromEnv({ OPENPAW_VISUAL_WORLD_SEED: 'seven' })).toThrow(/OPENPAW_VISUAL_WORLD_SEED must be an integer/);
    expect(() => blobSettingsFromEnv({ OPENPAW_GCS_BUCKET: 'b', OPENPAW_GCS_API_ENDPOINT: 'storage' })).toThrow(/OPENPAW_GCS_API_ENDPOINT must be an http\(s\) URL/);
    expect(() => ocrRemoteSettingsFromEnv('mathpix', { MATHPIX_APP_ID: 'id' })).toThrow(/OCR reader mathpix needs MATHPIX_APP_KEY/);
    expect(() => ocrRemoteSettingsFromEnv('vision-llm', { OPENPAW_OCR_VISION_MODEL: 'gpt-4o' })).toThrow(/OPENPAW_OCR_VISION_MODEL: model id must be/);
    expect(() => ocrRemoteSettingsFromEnv('vision-llm', { OPENPAW_OCR_VISION_MODEL: 'openai/gpt-4o', OPENAI_API_KEY: 'k', OPENPAW_LLM_MAX_ATTEMPTS: 'x' })).toThrow(/OPENPAW_LLM_MAX_ATTEMPTS/);
    expect(ocrRemoteSettingsFromEnv('pp-ocr', {})).toEqual({ reader: 'pp-ocr' });
  });

  it('reports every kind at fault in one error, and passes the defaults', () => {
    expect(() => assertProviderSettings({}, ['llm', 'embedder', 'blobs', 'scholarly', 'visual'])).not.toThrow();
    let message = '';
    try {
      assertProviderSettings({ OPENPAW_LLM_MODEL: 'mistral/large', OPENPAW_SCHOLARLY_SOURCES: 'scopus', OPENPAW_IMAGE_SEARCH: 'google' }, ['llm', 'scholarly', 'blobs']);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^invalid provider settings: OPENPAW_LLM_MODEL: .*; OPENPAW_SCHOLARLY_SOURCES names unknown sources: scopus/);
    // Only the kinds the service builds are checked.
    expect(message).not.toContain('OPENPAW_IMAGE_SEARCH');
  });

  it('finds a local blob directory that cannot be written, naming OPENPAW_BLOB_DIR, and passes once it can be', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'openpaw-blob-settings-'));
    try {
      const blocker = join(dir, 'volume');
      await writeFile(blocker, 'a file where the volume should be');
      const env = { OPENPAW_BLOB_DIR: join(blocker, 'blobs') };
      await expect(assertBlobStoreUsable(env)).rejects.toThrow(/blob storage: cannot write .* \(ENOTDIR\); OPENPAW_BLOB_DIR must name a writable volume/);
      await rm(blocker);
      await expect(assertBlobStoreUsable(env)).resolves.toBeUndefined();
      // A bucket is not tried here: GCS answers on use, with workload identity.
      await expect(assertBlobStoreUsable({ OPENPAW_GCS_BUCKET: 'b', OPENPAW_BLOB_DIR: join(blocker, 'x', 'y') })).resolves.toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
