import { ingestionSettingsFromEnv } from './config.js';

describe('ingestionSettingsFromEnv', () => {
  it('fetches public addresses only, whatever the environment says (no variable turns the SSRF guard off)', () => {
    expect(ingestionSettingsFromEnv({}).fetch.allowAddressClasses).toEqual([]);
    expect(ingestionSettingsFromEnv({ OPENPAW_INGESTION_ALLOW_LOOPBACK_FETCH: '1' }).fetch.allowAddressClasses).toEqual([]);
  });

  it('has defaults for every limit and names every invalid variable', () => {
    expect(ingestionSettingsFromEnv({})).toMatchObject({ maxUploadBytes: 20 * 1024 * 1024, uploadKeyPrefix: 'uploads/', ocr: { reader: 'pp-ocr', workers: 1, timeoutMs: 10_000 } });
    expect(() => ingestionSettingsFromEnv({ OPENPAW_INGESTION_OCR_WORKERS: '0', OPENPAW_INGESTION_FETCH_TIMEOUT_MS: 'soon' })).toThrow(
      /OPENPAW_INGESTION_OCR_WORKERS.*OPENPAW_INGESTION_FETCH_TIMEOUT_MS/,
    );
  });

  it('chooses the OCR reader by OPENPAW_INGESTION_OCR_READER, the remote ones included, and refuses an unknown one', () => {
    expect(ingestionSettingsFromEnv({ OPENPAW_INGESTION_OCR_READER: 'mathpix', MATHPIX_APP_ID: 'app', MATHPIX_APP_KEY: 'key' }).ocr.reader).toBe('mathpix');
    expect(ingestionSettingsFromEnv({ OPENPAW_INGESTION_OCR_READER: 'google-vision', GOOGLE_VISION_API_KEY: 'key' }).ocr.reader).toBe('google-vision');
    // A remote reader's credentials are settings too: missing, they are refused here, before any worker or client is built.
    expect(() => ingestionSettingsFromEnv({ OPENPAW_INGESTION_OCR_READER: 'mathpix', MATHPIX_APP_ID: 'app' })).toThrow(/OCR reader mathpix needs MATHPIX_APP_KEY/);
    expect(() => ingestionSettingsFromEnv({ OPENPAW_INGESTION_OCR_READER: 'google-vision', GOOGLE_VISION_API_KEY: 'key', GOOGLE_VISION_BASE_URL: 'vision' })).toThrow(/GOOGLE_VISION_BASE_URL must be an http\(s\) URL/);
    expect(() => ingestionSettingsFromEnv({ OPENPAW_INGESTION_OCR_READER: 'tesseract' })).toThrow(/OPENPAW_INGESTION_OCR_READER/);
  });
});
