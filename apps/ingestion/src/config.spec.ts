import { ingestionSettingsFromEnv } from './config.js';

describe('ingestionSettingsFromEnv', () => {
  it('fetches public addresses only unless the test-only loopback switch is on', () => {
    expect(ingestionSettingsFromEnv({}).fetch.allowAddressClasses).toEqual([]);
    expect(ingestionSettingsFromEnv({ OPENPAW_INGESTION_ALLOW_LOOPBACK_FETCH: '0' }).fetch.allowAddressClasses).toEqual([]);
    expect(ingestionSettingsFromEnv({ OPENPAW_INGESTION_ALLOW_LOOPBACK_FETCH: '1' }).fetch.allowAddressClasses).toEqual(['loopback']);
  });

  it('has defaults for every limit and names every invalid variable', () => {
    expect(ingestionSettingsFromEnv({})).toMatchObject({ maxUploadBytes: 20 * 1024 * 1024, uploadKeyPrefix: 'uploads/', ocr: { reader: 'pp-ocr', workers: 1, timeoutMs: 10_000 } });
    expect(() => ingestionSettingsFromEnv({ OPENPAW_INGESTION_OCR_WORKERS: '0', OPENPAW_INGESTION_ALLOW_LOOPBACK_FETCH: 'yes' })).toThrow(
      /OPENPAW_INGESTION_OCR_WORKERS.*OPENPAW_INGESTION_ALLOW_LOOPBACK_FETCH/,
    );
  });
});
