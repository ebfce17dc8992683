import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBlobStoreFromEnv, localShareSecretFromEnv } from './blob/create-blob-store-from-env.js';
import { verifyShareToken } from './blob/share-token.js';
import { createEmbedderFromEnv } from './embeddings/create-embedder-from-env.js';
import { createLlmFromEnv } from './llm/create-llm-from-env.js';
import { recordingLogger } from './test-support/recording-logger.js';

describe('createLlmFromEnv', () => {
  it('uses the local model when no credentials are configured, and says so', async () => {
    const logger = recordingLogger();
    const llm = createLlmFromEnv({}, { logger });
    expect(llm.describe()).toEqual({ defaultModel: 'local/deterministic', fallbackModels: [], providers: ['openai', 'anthropic', 'gemini', 'local'] });
    expect(logger.lines[0]!.msg).toMatch(/LOCAL deterministic model local\/deterministic \(no provider credentials configured\)/);
    expect(logger.lines[0]!.obj).toMatchObject({ local: true });
    const result = await llm.chat([{ role: 'user', content: 'What is 6 * 7?' }], { maxTokens: 100 });
    expect(result.model).toBe('local/deterministic');
    expect(result.text).toContain('Final answer: 42');
  });

  it('picks the configured providers, in order, and never logs a key', () => {
    const logger = recordingLogger();
    const env = { OPENAI_API_KEY: 'sk-env-openai-secret-123456', GEMINI_API_KEY: 'AIza-env-gemini-secret-1234567890' };
    const llm = createLlmFromEnv(env, { logger });
    expect(llm.describe()).toMatchObject({ defaultModel: 'openai/gpt-4o-mini', fallbackModels: ['gemini/gemini-2.5-flash'] });
    expect(logger.lines[0]!.msg).toBe('LLM: using openai/gpt-4o-mini with fallbacks gemini/gemini-2.5-flash');
    const logged = JSON.stringify(logger.lines);
    expect(logged).not.toContain(env.OPENAI_API_KEY);
    expect(logged).not.toContain(env.GEMINI_API_KEY);
  });

  it('honours an explicit model and chain, warning about models without credentials', () => {
    const logger = recordingLogger();
    const llm = createLlmFromEnv(
      { ANTHROPIC_API_KEY: 'sk-ant-x-1234567890', OPENPAW_LLM_MODEL: 'anthropic/claude-sonnet-4-5', OPENPAW_LLM_FALLBACK_MODELS: 'openai/gpt-4.1-mini, local/deterministic' },
      { logger },
    );
    expect(llm.describe()).toMatchObject({ defaultModel: 'anthropic/claude-sonnet-4-5', fallbackModels: ['openai/gpt-4.1-mini', 'local/deterministic'] });
    expect(logger.lines.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual([
      'LLM: openai/gpt-4.1-mini has no credentials in env; it answers only calls that pass a per-user key',
    ]);
  });

  it('treats an OpenAI-compatible base URL as configured, and rejects bad settings', () => {
    expect(createLlmFromEnv({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', OPENPAW_LLM_MODEL: 'openai/llama3.1' }).describe().defaultModel).toBe('openai/llama3.1');
    expect(() => createLlmFromEnv({ OPENPAW_LLM_MAX_ATTEMPTS: 'zero' })).toThrow(/OPENPAW_LLM_MAX_ATTEMPTS/);
    expect(() => createLlmFromEnv({ OPENPAW_LLM_PRICES: '{"openai/x": {"input": -1, "output": 0}}' })).toThrow(/OPENPAW_LLM_PRICES is invalid/);
    expect(() => createLlmFromEnv({ OPENPAW_LLM_MODEL: 'gpt-4o' })).toThrow(/provider\/model/);
  });
});

describe('createEmbedderFromEnv', () => {
  it('uses the local embedder unless a remote model is named', () => {
    const logger = recordingLogger();
    expect(createEmbedderFromEnv({ OPENAI_API_KEY: 'sk-only-for-llm-123456' }, { logger }).model).toBe('local/hashed-ngrams-384');
    expect(logger.lines[0]!.msg).toMatch(/LOCAL hashed n-gram embedder/);
    expect(createEmbedderFromEnv({ OPENPAW_EMBEDDINGS_DIMENSIONS: '256' }).dimensions).toBe(256);
    const remote = createEmbedderFromEnv({ OPENPAW_EMBEDDINGS_MODEL: 'openai/text-embedding-3-small', OPENAI_API_KEY: 'sk-x-1234567890' });
    expect(remote.model).toBe('openai/text-embedding-3-small');
    expect(() => createEmbedderFromEnv({ OPENPAW_EMBEDDINGS_MODEL: 'openai/text-embedding-3-small' })).toThrow(/API_KEY/);
    expect(() => createEmbedderFromEnv({ OPENPAW_EMBEDDINGS_MODEL: 'cohere/embed' })).toThrow(/openai\/<model>/);
  });
});

describe('createBlobStoreFromEnv', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'openpaw-blob-env-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('uses the local filesystem by default, with a share secret the gateway can load too', async () => {
    const logger = recordingLogger();
    const env = { OPENPAW_BLOB_DIR: dir, OPENPAW_BLOB_SHARE_BASE_URL: 'http://gateway.test/v1/shared' };
    const store = await createBlobStoreFromEnv(env, { logger });
    expect(store.backend).toBe('local-fs');
    expect(logger.lines[0]!.msg).toMatch(/LOCAL filesystem at .*local default/);
    await store.put('k.txt', 'v');
    const share = await store.shareUrl('k.txt', { expiresInSeconds: 60 });
    expect(share.url.startsWith('http://gateway.test/v1/shared/')).toBe(true);
    const gatewaySecret = await localShareSecretFromEnv(env);
    expect(verifyShareToken(share.url.split('/').at(-1)!, gatewaySecret)).toMatchObject({ valid: true, key: 'k.txt' });
  });

  it('uses GCS when a bucket is configured', async () => {
    const logger = recordingLogger();
    const store = await createBlobStoreFromEnv({ OPENPAW_GCS_BUCKET: 'b', OPENPAW_GCS_API_ENDPOINT: 'http://127.0.0.1:1', OPENPAW_GCS_PROJECT_ID: 'p' }, { logger });
    expect(store.backend).toBe('gcs');
    expect(logger.lines[0]!.obj).toMatchObject({ backend: 'gcs', bucket: 'b', local: false });
  });
});
