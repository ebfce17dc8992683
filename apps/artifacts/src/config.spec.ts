import { artifactsSettingsFromEnv } from './config.js';

describe('artifactsSettingsFromEnv', () => {
  it('fetches source URLs on public addresses only, whatever the environment says (no variable turns the SSRF guard off; issue 26)', () => {
    expect(artifactsSettingsFromEnv({}).allowPrivateUrls).toBe(false);
    // The variable that used to allow private URLs: a test that needs them builds its settings itself.
    expect(artifactsSettingsFromEnv({ OPENPAW_ARTIFACTS_ALLOW_PRIVATE_URLS: '1' }).allowPrivateUrls).toBe(false);
  });
});
