import { type MessageData, RunEnded, VISUAL_DEGREES, visualWorldInfo } from '@openpaw/contracts';
import type { DecideContext, Effect, SagaInput } from '@openpaw/saga';
import { hopsVerified } from './chains.js';
import { fail, type Run, type VisualDecision } from './outcomes.js';
import { status, withEvents } from './stream-events.js';
import type { VisualDegreesData } from './visual-degrees.model.js';

/**
 * What wraps every decision of the table: the world the service searches is learned from the first
 * reply that tells it (so `final` and `no_path` can say "local demo world of N invented people"); a
 * decision that throws ends the run as an `error` with its reason (not a refused input that would wait
 * for the runtime budget and end as `no_path`); and a run that ends in FAILED, or is cancelled, publishes
 * `RunEnded`, so the service aborts the step it may still be running for it.
 */
export function decideGuarded(run: Run, input: SagaInput, context: DecideContext, decide: (run: Run, input: SagaInput, context: DecideContext) => VisualDecision): VisualDecision {
  const known = { ...run, data: withWorldOf(run.data, input, context.now) };
  let decision: VisualDecision;
  try {
    decision = decide(known, input, context);
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    decision = fail(known.data, 'unexpected_error', reason.slice(0, 300), context.now, 'unexpected_error', { cause: reason.slice(0, 300) });
  }
  if (decision.outcome !== 'transition' || decision.to !== 'FAILED') return decision;
  return { ...decision, effects: [...(decision.effects ?? []), runEnded(run, 'FAILED', decision.data.failure?.reason ?? 'failed')] };
}

/** An owner's cancel: the `cancelled` stream event, and `RunEnded` for the step in flight. */
export function cancelled(run: Run, reason: string | undefined, now: Date): { readonly data: VisualDegreesData; readonly effects: readonly Effect[] } {
  const data = withEvents(run.data, now, {
    type: 'cancelled',
    data: { message: 'The investigation was cancelled.', reason: reason ?? null, hopDepth: hopsVerified(run.data), used: run.data.used },
  });
  return { data, effects: [runEnded(run, 'CANCELLED', 'cancelled')] };
}

function runEnded(run: Run, state: string, reason: string): Effect {
  const data: MessageData<typeof RunEnded> = { runId: run.id, workflowType: VISUAL_DEGREES, state, reason };
  return { type: 'publish', message: RunEnded, data, key: 'run-ended' };
}

/** The run's data with the world a reply names, the first time one does (a status event says it). */
function withWorldOf(data: VisualDegreesData, input: SagaInput, now: Date): VisualDegreesData {
  if (data.world !== undefined || input.kind !== 'event') return data;
  const parsed = visualWorldInfo.safeParse((input.envelope.data as { readonly world?: unknown } | null)?.world);
  if (!parsed.success) return data;
  return withEvents({ ...data, world: parsed.data }, now, status(`Searching the ${parsed.data.description} (seed ${parsed.data.seed}).`));
}
