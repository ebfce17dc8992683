import { tmpdir } from 'node:os';
import { type ServiceMessagingSettings, serviceMessagingSettingsFromEnv } from '@openpaw/platform';
import { assertProviderSettings, providerKindsOf } from '@openpaw/providers';
import { z } from 'zod';

/** The assets service's settings, from the environment (validated at start). */
export interface AssetsSettings {
  /**
   * The environment as read once at start, for the provider factories (`create*FromEnv` of
   * `@openpaw/providers`, each validating its own variables): nothing reads `process.env` later.
   */
  readonly providerEnv: Readonly<Record<string, string | undefined>>;
  /**
   * NATS servers, stream provisioning, the command lanes this process consumes and their concurrency
   * (`OPENPAW_NATS_URL`, `OPENPAW_STREAMS_*`, `OPENPAW_LANES`, `OPENPAW_LANE_CONCURRENCY`).
   */
  readonly messaging: ServiceMessagingSettings;
  readonly databaseUrl: string;
  readonly poolSize: number;
  readonly video: VideoSettings;
}

export interface VideoSettings {
  /** The ffmpeg executable (a path, or a name looked up on PATH). */
  readonly ffmpegPath: string;
  /** `libx264` or `mpeg4`; undefined: libx264 when this ffmpeg has it, else mpeg4. */
  readonly encoder: 'libx264' | 'mpeg4' | undefined;
  /** How long each frame (title, step, answer) stays on screen. */
  readonly secondsPerFrame: number;
  /** ffmpeg is killed past this. */
  readonly encodeTimeoutMs: number;
  /** Renders running at once in this process (each is one ffmpeg process). */
  readonly maxConcurrentRenders: number;
  /** Where per-render working directories are made (and removed after each render). */
  readonly workDir: string;
}

export const ASSETS_SCHEMA = 'assets';

const envSchema = z.object({
  OPENPAW_DATABASE_URL: z.string().min(1).default('postgres://openpaw@127.0.0.1:5432/openpaw'),
  OPENPAW_ASSETS_POOL_SIZE: z.coerce.number().int().positive().default(4),
  OPENPAW_FFMPEG_PATH: z.string().min(1).default('ffmpeg'),
  OPENPAW_VIDEO_ENCODER: z.enum(['libx264', 'mpeg4']).optional(),
  OPENPAW_VIDEO_SECONDS_PER_FRAME: z.coerce.number().positive().max(60).default(4),
  OPENPAW_VIDEO_ENCODE_TIMEOUT_MS: z.coerce.number().int().positive().default(120_000),
  OPENPAW_VIDEO_MAX_CONCURRENT: z.coerce.number().int().positive().default(2),
  OPENPAW_VIDEO_WORK_DIR: z.string().min(1).optional(),
});

/** Reads the settings; throws naming every invalid variable. */
export function assetsSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): AssetsSettings {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    throw new Error(`invalid assets configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const e = parsed.data;
  // The provider factories' own settings, checked before the app is built: a bad value keeps the service not ready, naming it.
  assertProviderSettings(env, providerKindsOf('assets'));
  return {
    providerEnv: Object.freeze({ ...env }),
    messaging: serviceMessagingSettingsFromEnv(env),
    databaseUrl: e.OPENPAW_DATABASE_URL,
    poolSize: e.OPENPAW_ASSETS_POOL_SIZE,
    video: {
      ffmpegPath: e.OPENPAW_FFMPEG_PATH,
      encoder: e.OPENPAW_VIDEO_ENCODER,
      secondsPerFrame: e.OPENPAW_VIDEO_SECONDS_PER_FRAME,
      encodeTimeoutMs: e.OPENPAW_VIDEO_ENCODE_TIMEOUT_MS,
      maxConcurrentRenders: e.OPENPAW_VIDEO_MAX_CONCURRENT,
      workDir: e.OPENPAW_VIDEO_WORK_DIR ?? tmpdir(),
    },
  };
}
