import { blobSettingsFromEnv } from './blob/create-blob-store-from-env.js';
import { embedderSettingsFromEnv } from './embeddings/create-embedder-from-env.js';
import { llmSettingsFromEnv } from './llm/create-llm-from-env.js';
import { visualProviderSettingsFromEnv } from './recognition/create-visual-providers-from-env.js';
import { scholarlySettingsFromEnv } from './scholarly/create-scholarly-sources-from-env.js';
import type { Env } from './shared/env.js';

/** Each provider kind's settings reader: the validation its `create*FromEnv` factory runs, without building anything. */
export const PROVIDER_SETTINGS = {
  llm: llmSettingsFromEnv,
  embedder: embedderSettingsFromEnv,
  blobs: blobSettingsFromEnv,
  scholarly: scholarlySettingsFromEnv,
  visual: visualProviderSettingsFromEnv,
} as const;
export type ProviderKind = keyof typeof PROVIDER_SETTINGS;

/**
 * Validates the settings of every provider kind a service builds, before it builds any, so a bad
 * value is reported while the service is alive and not ready instead of failing the application's
 * build. Throws one error listing every kind's problem (each names its variables).
 */
export function assertProviderSettings(env: Env, kinds: readonly ProviderKind[]): void {
  const problems: string[] = [];
  for (const kind of kinds) {
    try {
      PROVIDER_SETTINGS[kind](env);
    } catch (error) {
      problems.push(error instanceof Error ? error.message : String(error));
    }
  }
  if (problems.length > 0) throw new Error(`invalid provider settings: ${problems.join('; ')}`);
}
