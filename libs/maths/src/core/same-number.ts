/**
 * The relative precision a double the engine computes in a few operations is trusted to: about 10^7 units
 * in the last place, room for the error of a short computation, far short of any difference a written
 * answer makes.
 */
export const DOUBLE_NOISE = 1e-9;

export interface SameNumberOptions {
  /** The relative tolerance: `DOUBLE_NOISE` unless a check is coarser by nature (a finite difference, a sampled limit). */
  readonly relative?: number;
  /**
   * The magnitude of the terms the two values were computed from, when that is larger than the values
   * themselves: a result near zero carries the rounding error of its terms (cancellation), so its noise is
   * measured against them. A measured magnitude, never a constant floor.
   */
  readonly scale?: number;
  /** The precision the value was written to (half a unit in its last written place): differences within it agree. */
  readonly written?: number;
}

/**
 * Whether two doubles are the same number up to floating-point noise, measured relative to their
 * magnitude (or the magnitude of the terms they came from): every numeric check in the engine compares
 * through here. There is no absolute floor: an absolute 10^-9 took 0.000001000007614 for
 * 0.000001000000000001, and anything smaller than 10^-9 for 0. Exact values (rationals) are compared
 * exactly before any double is; this is for values that are only doubles.
 */
export function sameNumber(a: number, b: number, options: SameNumberOptions = {}): boolean {
  if (!Number.isFinite(a) || !Number.isFinite(b)) return a === b;
  const difference = Math.abs(a - b);
  if (options.written !== undefined && difference <= options.written) return true;
  const magnitude = Math.max(Math.abs(a), Math.abs(b), options.scale ?? 0);
  return difference <= (options.relative ?? DOUBLE_NOISE) * magnitude;
}

/** The largest magnitude among values (the scale of a set of sampled evaluations). */
export function largestMagnitude(values: readonly number[]): number {
  return values.reduce((most, v) => Math.max(most, Math.abs(v)), 0);
}
