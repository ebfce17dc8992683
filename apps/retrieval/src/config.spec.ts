import { retrievalSettingsFromEnv } from './config.js';

describe('retrievalSettingsFromEnv', () => {
  it('uses the embedded vector index unless OPENPAW_QDRANT_URL is set', () => {
    expect(retrievalSettingsFromEnv({}).vectors).toEqual({ backend: 'embedded' });
    expect(retrievalSettingsFromEnv({ OPENPAW_QDRANT_URL: '' }).vectors).toEqual({ backend: 'embedded' });
    expect(retrievalSettingsFromEnv({ OPENPAW_QDRANT_URL: 'http://qdrant:6333', OPENPAW_QDRANT_API_KEY: 'k' }).vectors).toEqual({
      backend: 'qdrant',
      url: 'http://qdrant:6333',
      apiKey: 'k',
      collection: 'openpaw_problems',
      timeoutMs: 10_000,
    });
  });

  it('publishes the deprecated v1 replies only when OPENPAW_RETRIEVAL_REPLIES_V1 is on', () => {
    expect(retrievalSettingsFromEnv({}).publishRepliesV1).toBe(false);
    expect(retrievalSettingsFromEnv({ OPENPAW_RETRIEVAL_REPLIES_V1: 'on' }).publishRepliesV1).toBe(true);
    expect(() => retrievalSettingsFromEnv({ OPENPAW_RETRIEVAL_REPLIES_V1: 'yes' })).toThrow(/OPENPAW_RETRIEVAL_REPLIES_V1/);
  });

  it('names every invalid variable', () => {
    expect(() => retrievalSettingsFromEnv({ OPENPAW_QDRANT_URL: 'ftp://x', OPENPAW_RETRIEVAL_POOL_SIZE: '0' })).toThrow(
      /OPENPAW_RETRIEVAL_POOL_SIZE.*OPENPAW_QDRANT_URL|OPENPAW_QDRANT_URL.*OPENPAW_RETRIEVAL_POOL_SIZE/,
    );
  });
});
