import { retrieveOrGenerateResult } from '@openpaw/contracts';
import { z } from 'zod';

/** The workflow type of spec 01 (defined once, in the contracts). */
export { RETRIEVE_OR_GENERATE } from '@openpaw/contracts';

export const TERMINAL_STATUS_BY_STATE: Readonly<Record<string, 'succeeded' | 'failed' | 'cancelled'>> = {
  SUCCEEDED: 'succeeded',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
};

/**
 * The public view of a `retrieve_or_generate` run: spec 01's WorkflowResult plus `state`. The
 * coordinator's definition writes it (typed by the contract's `retrieveOrGenerateView`); the gateway
 * reads and documents it with the contract's lenient reader schema.
 */
export const workflowResult = retrieveOrGenerateResult;
export type WorkflowResult = z.infer<typeof workflowResult>;

const uuid = z.uuid();

function outputOf(view: Record<string, unknown>): Record<string, unknown> | undefined {
  const output = view['output'];
  return typeof output === 'object' && output !== null && !Array.isArray(output) ? (output as Record<string, unknown>) : undefined;
}

/** The solution asset version a run's view names, if any. */
export function solutionAssetIdOf(view: Record<string, unknown>): string | undefined {
  const id = outputOf(view)?.['asset_version_id'];
  return uuid.safeParse(id).success ? (id as string) : undefined;
}

export function videoPendingOf(view: Record<string, unknown>): boolean {
  return outputOf(view)?.['video_pending'] === true;
}
