import type { Backoff } from '@openpaw/saga';

/** Spec 03's worker states S0–S7 (see visual-degrees.definition.ts for the table). */
export const VISUAL_DEGREES_STATES = ['INITIALIZING', 'DIRECT_EDGE', 'DISCOVERING', 'SELECTING', 'VERIFYING', 'BRIDGING', 'SUCCEEDED', 'FAILED', 'CANCELLED'] as const;
export type VisualDegreesState = (typeof VISUAL_DEGREES_STATES)[number];

/** Spec 03's transitions (S0–S7; the definition's, derived from its rows, must equal it: see the spec file). */
export const VISUAL_DEGREES_TRANSITIONS = {
  INITIALIZING: ['DIRECT_EDGE', 'FAILED', 'CANCELLED'],
  DIRECT_EDGE: ['SUCCEEDED', 'DISCOVERING', 'FAILED', 'CANCELLED'],
  DISCOVERING: ['SELECTING', 'FAILED', 'CANCELLED'],
  SELECTING: ['VERIFYING', 'FAILED', 'CANCELLED'],
  VERIFYING: ['BRIDGING', 'SUCCEEDED', 'FAILED', 'SELECTING', 'DISCOVERING', 'CANCELLED'],
  BRIDGING: ['SUCCEEDED', 'DISCOVERING', 'FAILED', 'CANCELLED'],
} as const satisfies Partial<Record<VisualDegreesState, readonly VisualDegreesState[]>>;

export interface VisualDegreesTimings {
  /** A step's timeout, from the command's pickup on the `visual` lane. */
  readonly stepTimeoutMs: number;
  readonly backoff: Backoff;
  /** Retries of a step that failed retryably or timed out. */
  readonly retries: number;
}

export const DEFAULT_VISUAL_DEGREES_TIMINGS: VisualDegreesTimings = { stepTimeoutMs: 60_000, backoff: { baseMs: 1_000, factor: 2, maxMs: 10_000 }, retries: 2 };
