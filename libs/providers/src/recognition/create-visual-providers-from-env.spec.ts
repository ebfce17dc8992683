import { recordingLogger } from '../test-support/recording-logger.js';
import { createVisualProvidersFromEnv } from './create-visual-providers-from-env.js';

describe('createVisualProvidersFromEnv', () => {
  it('is local without keys, and says so', () => {
    const logger = recordingLogger();
    const providers = createVisualProvidersFromEnv({}, { logger });
    expect(providers.imageSearch).toMatchObject({ provider: 'local/visual-world', local: true });
    expect(providers.recognizer).toMatchObject({ provider: 'local/glyph-recognizer', local: true });
    expect(providers.world?.seed).toBe(7);
    expect(logger.lines.map((l) => l.msg).join('\n')).toMatch(/LOCAL local\/visual-world/);
  });

  it('prefers SerpApi, then Brave, then Bing by key; Rekognition when AWS is configured', () => {
    expect(createVisualProvidersFromEnv({ BING_SEARCH_API_KEY: 'b', SERPAPI_API_KEY: 's' }).imageSearch.provider).toBe('serpapi/google_images');
    expect(createVisualProvidersFromEnv({ BING_SEARCH_API_KEY: 'b', BRAVE_SEARCH_API_KEY: 'r' }).imageSearch.provider).toBe('brave/images');
    expect(createVisualProvidersFromEnv({ OPENPAW_IMAGE_SEARCH: 'bing', BING_SEARCH_API_KEY: 'b' }).imageSearch.provider).toBe('bing/images');
    const aws = createVisualProvidersFromEnv({ SERPAPI_API_KEY: 's', AWS_ACCESS_KEY_ID: 'AKID', AWS_SECRET_ACCESS_KEY: 'x', AWS_REGION: 'eu-west-1' });
    expect(aws.recognizer.provider).toBe('aws/rekognition');
    expect(aws.world).toBeUndefined();
    expect(() => createVisualProvidersFromEnv({ OPENPAW_IMAGE_SEARCH: 'brave' })).toThrow(/API key/);
    expect(() => createVisualProvidersFromEnv({ OPENPAW_IMAGE_SEARCH: 'yahoo' })).toThrow(/must be one of/);
  });
});
