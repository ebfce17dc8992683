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
    expect(ingestionSettingsFromEnv({ OPENPAW_INGESTION_OCR_READER: 'mathpix' }).ocr.reader).toBe('mathpix');
    expect(ingestionSettingsFromEnv({ OPENPAW_INGESTION_OCR_READER: 'google-vision' }).ocr.reader).toBe('google-vision');
    expect(() => ingestionSettingsFromEnv({ OPENPAW_INGESTION_OCR_READER: 'tesseract' })).toThrow(/OPENPAW_INGESTION_OCR_READER/);
  });
});
