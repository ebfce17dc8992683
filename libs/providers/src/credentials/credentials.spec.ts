import { OCR_READER_NAMES, ocrRemoteSettingsFromEnv } from '../ocr/index.js';
import { PROVIDER_SETTINGS, type ProviderKind } from '../provider-settings.js';
import { createScholarlySourcesFromEnv } from '../scholarly/create-scholarly-sources-from-env.js';
import type { Env } from '../shared/env.js';
import { PROVIDER_CREDENTIALS, type ProviderPurpose } from './index.js';

/** A variable that holds a credential (what a deployment keeps in a Secret, not a ConfigMap). */
const CREDENTIAL = /(_API_KEY|_APP_KEY|_ACCESS_KEY|_KEY_ID|_TOKEN|_SECRET|_PASSWORD)$/;

/** The credential variables a reader looks up, given `settings` (each setting that chooses a provider, set in turn). */
function credentialsRead(read: (env: Env) => unknown, settings: Env): string[] {
  const names = new Set<string>();
  const env = new Proxy<Env>(settings, {
    get: (target, name) => {
      if (typeof name === 'string') names.add(name);
      return target[name as string];
    },
  });
  try {
    read(env);
  } catch {
    // A refusal (a chosen provider without its key) still shows which keys the reader looked up.
  }
  return [...names].filter((name) => CREDENTIAL.test(name));
}

/** What reads each kind's credentials: its settings reader, or for scholarly sources (whose keys are optional) the factory. */
const READERS: Readonly<Record<ProviderKind, (env: Env) => unknown>> = { ...PROVIDER_SETTINGS, scholarly: (env) => createScholarlySourcesFromEnv(env) };

/** Settings that choose each provider a kind can build, so every branch that reads a key runs. */
const CHOICES: Readonly<Record<ProviderKind, readonly Env[]>> = {
  llm: [{}],
  embedder: [{}, { OPENPAW_EMBEDDINGS_MODEL: 'openai/text-embedding-3-small' }],
  // GCS by bucket (workload identity); a local directory's share secret is generated in the directory, not a Secret's.
  blobs: [{ OPENPAW_GCS_BUCKET: 'bucket' }],
  scholarly: [{}, { OPENPAW_SCHOLARLY_SOURCES: 'all' }],
  visual: [{}, ...['serpapi', 'brave', 'bing'].map((search) => ({ OPENPAW_IMAGE_SEARCH: search, OPENPAW_RECOGNITION: 'rekognition' }))],
};

describe('provider credentials per purpose', () => {
  it.each(Object.keys(CHOICES) as ProviderKind[])('%s: every credential its settings reader looks up is one of its purpose\'s Secret keys', (kind) => {
    const read = CHOICES[kind].flatMap((settings) => credentialsRead(READERS[kind], settings));
    expect(read.length > 0 || PROVIDER_CREDENTIALS[kind].length === 0).toBe(true);
    expect(read.filter((name) => !PROVIDER_CREDENTIALS[kind].includes(name))).toEqual([]);
  });

  it('ocr: every credential a remote reader looks up (the vision LLM\'s per model provider) is one of the ocr Secret keys', () => {
    const models = ['openai/gpt-4o', 'anthropic/claude-sonnet-4', 'gemini/gemini-2.5-flash'];
    const read = OCR_READER_NAMES.flatMap((reader) => models.flatMap((model) => credentialsRead((env) => ocrRemoteSettingsFromEnv(reader, env), { OPENPAW_OCR_VISION_MODEL: model, MATHPIX_APP_ID: 'app' })));
    expect(new Set(read)).toEqual(new Set(['MATHPIX_APP_KEY', 'GOOGLE_VISION_API_KEY', 'GOOGLE_VISION_ACCESS_TOKEN', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY']));
    expect(read.filter((name) => !PROVIDER_CREDENTIALS.ocr.includes(name))).toEqual([]);
  });

  it('no purpose lists a variable twice or a setting that is not a credential, but Mathpix\'s app id (sent with its key) and the AWS SDK\'s own', () => {
    for (const purpose of Object.keys(PROVIDER_CREDENTIALS) as ProviderPurpose[]) {
      const keys = PROVIDER_CREDENTIALS[purpose];
      expect(new Set(keys).size).toBe(keys.length);
      expect(keys.filter((key) => !CREDENTIAL.test(key) && key !== 'MATHPIX_APP_ID')).toEqual([]);
    }
  });
});
