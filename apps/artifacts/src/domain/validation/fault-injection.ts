import type { SnapshotChunk } from '@openpaw/contracts';

/**
 * TEST-ONLY fault injection, off unless `OPENPAW_ARTIFACTS_FAULT_INJECTION=1`: a marker in a source's
 * text makes the validator of every job whose snapshot holds that source reject the artifact, so
 * end-to-end tests can drive the retry rule through real services honestly (the fault travels with
 * the data, through the snapshot, like a real content problem would). Markers:
 *
 * - `openpaw-fault:validation-fails-once`: generation 1 is rejected, the retry (generation 2) passes;
 * - `openpaw-fault:validation-fails-always`: every generation is rejected.
 *
 * Production leaves the variable unset; the markers are then ordinary text.
 */
export const FAULT_MARKERS = {
  once: 'openpaw-fault:validation-fails-once',
  always: 'openpaw-fault:validation-fails-always',
} as const;

export function injectedValidationFault(enabled: boolean, chunks: readonly SnapshotChunk[], generation: number): string | undefined {
  if (!enabled) return undefined;
  const text = chunks.map((c) => c.text).join('\n');
  if (text.includes(FAULT_MARKERS.always)) return `injected fault (${FAULT_MARKERS.always}): generation ${generation} rejected`;
  if (text.includes(FAULT_MARKERS.once) && generation === 1) return `injected fault (${FAULT_MARKERS.once}): generation 1 rejected`;
  return undefined;
}
