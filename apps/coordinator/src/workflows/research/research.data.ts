import { KEYED_RESEARCH_PROVIDERS, type ExternalReport, type KeyedResearchProvider, type LegFailureReason, type LegStatus, type MessageData, type ResearchErrorKind, type ResearchProvider, type ResearchSynthesized, type SealedKeys, type ShareInfo, type SUBSCRIPTION_TIERS } from '@openpaw/contracts';
import { roundUsd } from '../shared/run-status.js';

/** One provider's leg, with the spec's per-leg states. */
export interface Leg {
  readonly provider: ResearchProvider;
  readonly status: LegStatus;
  /** The round of the latest command sent for it (1, then +1 per retry that re-ran it); 0 before any. */
  readonly round: number;
  readonly model: string | null;
  readonly content: string | null;
  readonly truncated: boolean;
  readonly local: boolean;
  readonly error: string | null;
  readonly errorReason: LegFailureReason | null;
  readonly startedAt: string | null;
  readonly completedAt: string | null;
  /** Spent over every round. */
  readonly costUsd: number;
}

export interface ResearchData {
  readonly request: {
    readonly title: string;
    /** Title commands asked so far: an edited prompt asks again (`title:<n>`); absent on runs from before, meaning 1. */
    readonly titleRound?: number;
    readonly titleSource: 'user' | 'model' | 'fallback';
    readonly prompt: string;
    readonly selectedLlms: readonly ResearchProvider[];
    readonly synthesisLlm: ResearchProvider;
    readonly externalReports: readonly ExternalReport[];
    readonly subscriptionTier: (typeof SUBSCRIPTION_TIERS)[number];
  };
  /** Sealed (encrypted) keys only: the research service opens them. Never in the view. */
  readonly keys: SealedKeys;
  /** The policy's cost cap for the run (`cost_cap_usd`), over every leg, retry and synthesis. */
  readonly costCapUsd: number;
  readonly startedAt: string | null;
  readonly completedAt: string | null;
  readonly legs: readonly Leg[];
  readonly retryCount: number;
  readonly partialFailure: { readonly failedProviders: readonly ResearchProvider[]; readonly detectedAt: string; readonly retryCount: number } | null;
  /** Synthesis commands sent so far (the latest is `synthesis:<synthesisRound>`). */
  readonly synthesisRound: number;
  readonly synthesis: MessageData<typeof ResearchSynthesized>['synthesis'];
  readonly synthesisSkipped: boolean;
  readonly synthesisError: string | null;
  readonly synthesisCostUsd: number;
  readonly shareInfo: ShareInfo | null;
  readonly error: string | null;
  readonly errorKind: ResearchErrorKind | null;
  /** The provider failure behind the error when one explains it (`auth`: a rejected key); absent on runs from before. */
  readonly errorReason?: LegFailureReason | null;
  /** Times the run entered `failed` (each publishes its own ResearchFailed). */
  readonly failures: number;
}

type D = ResearchData;

export const keyFor = (keys: SealedKeys, provider: ResearchProvider): string | null =>
  provider === 'local' ? null : (keys[provider] ?? null);

/** Keyed providers of `providers` with no sealed key in `keys`. */
export function missingKeys(keys: SealedKeys, providers: readonly ResearchProvider[]): KeyedResearchProvider[] {
  return KEYED_RESEARCH_PROVIDERS.filter((p) => providers.includes(p) && keys[p] === undefined);
}

export const spentUsd = (d: D): number => d.legs.reduce((sum, leg) => sum + leg.costUsd, 0) + d.synthesisCostUsd;
export const remainingUsd = (d: D): number => Math.max(0, roundUsd(d.costCapUsd - spentUsd(d)));
export const isOpen = (leg: Leg): boolean => leg.status === 'pending' || leg.status === 'processing';
export const providersWhere = (d: D, status: LegStatus): ResearchProvider[] => d.legs.filter((l) => l.status === status).map((l) => l.provider);

export function freshLeg(provider: ResearchProvider): Leg {
  return { provider, status: 'pending', round: 0, model: null, content: null, truncated: false, local: false, error: null, errorReason: null, startedAt: null, completedAt: null, costUsd: 0 };
}

export const withLeg = (d: D, index: number, leg: Leg): D => ({ ...d, legs: d.legs.map((l, i) => (i === index ? leg : l)) });
