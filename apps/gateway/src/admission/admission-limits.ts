import { parseJsonSetting, validSetting } from '@openpaw/platform';
import { z } from 'zod';

/**
 * Admission limits (flow control at the edge). A submission that would start a run is admitted only
 * within its user's rate and in-flight limits (by subscription tier) and while the platform's
 * critical backlog is below a global bound; otherwise it is answered `429` with `Retry-After`, never
 * accepted and failed later. Configurable with `OPENPAW_ADMISSION_JSON` (any part of it).
 */
const tierLimits = z.strictObject({
  /** Runs started per second, sustained (token bucket refill). */
  ratePerSecond: z.number().positive(),
  /** Runs that may start at once above the sustained rate (bucket size). */
  burst: z.int().positive(),
  /** Runs of one user not yet ended. */
  maxInFlight: z.int().positive(),
});
export type TierLimits = z.infer<typeof tierLimits>;

export const admissionLimitsSchema = z.strictObject({
  tiers: z.strictObject({ free: tierLimits, pro: tierLimits, enterprise: tierLimits }),
  /** Runs not yet ended, all users together, that this gateway admitted. */
  maxInFlightTotal: z.int().positive(),
  /** Commands waiting on the services' critical lanes (JetStream pending) above which new runs wait. */
  maxCriticalBacklog: z.int().positive(),
  /**
   * Megapixels of problem images this gateway admitted that ingestion has not finished reading
   * (runs not yet past INGESTING). Ingestion decodes every image to raw pixels, so a burst of huge
   * images is bounded here, in pixels, not in requests: one more is answered 429 until some are read.
   */
  maxIngestingMegapixels: z.number().positive(),
});
export type AdmissionLimits = z.infer<typeof admissionLimitsSchema>;

export const DEFAULT_ADMISSION_LIMITS: AdmissionLimits = {
  tiers: {
    free: { ratePerSecond: 2, burst: 10, maxInFlight: 20 },
    pro: { ratePerSecond: 5, burst: 20, maxInFlight: 60 },
    enterprise: { ratePerSecond: 20, burst: 60, maxInFlight: 300 },
  },
  maxInFlightTotal: 2_000,
  maxCriticalBacklog: 500,
  // Eight of the largest images ingestion accepts (40 MP each, ~120 MB decoded).
  maxIngestingMegapixels: 320,
};

const patchSchema = z.strictObject({
  tiers: z.strictObject({ free: tierLimits.partial(), pro: tierLimits.partial(), enterprise: tierLimits.partial() }).partial().optional(),
  maxInFlightTotal: z.int().positive().optional(),
  maxCriticalBacklog: z.int().positive().optional(),
  maxIngestingMegapixels: z.number().positive().optional(),
});

const SETTING = 'OPENPAW_ADMISSION_JSON';

/** DEFAULT_ADMISSION_LIMITS with `raw` (JSON, any part of the shape) applied; throws naming what is invalid. */
export function admissionLimitsFrom(raw: string | undefined): AdmissionLimits {
  const p = parseJsonSetting(SETTING, raw, patchSchema);
  if (p === undefined) return DEFAULT_ADMISSION_LIMITS;
  const d = DEFAULT_ADMISSION_LIMITS;
  return validSetting(SETTING, admissionLimitsSchema, {
    tiers: {
      free: { ...d.tiers.free, ...p.tiers?.free },
      pro: { ...d.tiers.pro, ...p.tiers?.pro },
      enterprise: { ...d.tiers.enterprise, ...p.tiers?.enterprise },
    },
    maxInFlightTotal: p.maxInFlightTotal ?? d.maxInFlightTotal,
    maxCriticalBacklog: p.maxCriticalBacklog ?? d.maxCriticalBacklog,
    maxIngestingMegapixels: p.maxIngestingMegapixels ?? d.maxIngestingMegapixels,
  });
}

export type Tier = keyof AdmissionLimits['tiers'];

export const ADMISSION_LIMITS = Symbol('openpaw.gateway.admissionLimits');

export function tierOf(claim: string | undefined): Tier {
  return claim === 'pro' || claim === 'enterprise' ? claim : 'free';
}
