import { ExecuteResearchLegs, GenerateResearchTitle, type MessageData } from '@openpaw/contracts';
import { type Effect, RUN_DEADLINE_TIMER, type RunSnapshot, sendBatch, type StepLogEntry } from '@openpaw/saga';
import { roundUsd } from '../shared/run-status.js';
import { keyFor, type Leg, remainingUsd, type ResearchData } from './research.data.js';
import { type DeadlinePayload, legKey, titleKey } from './research.ids.js';
import type { ResearchTimings } from './research.timings.js';
import type { ResearchState } from './research.transitions.js';

type D = ResearchData;
type Run = RunSnapshot<ResearchState, D>;

/** The effects the research run asks for: its phase deadline, the title command, the legs' commands. */
export function researchCommands(timings: ResearchTimings) {
  const deadline = (phase: DeadlinePayload['phase'], round: number): Effect => ({
    type: 'setTimer',
    name: RUN_DEADLINE_TIMER,
    afterMs: timings.phaseDeadlineMs,
    payload: { phase, round },
  });
  const clearDeadline: Effect = { type: 'clearTimer', name: RUN_DEADLINE_TIMER };
  const policyLog = (d: D): StepLogEntry => ({ step: 'policy_applied', payload: { cost_cap_usd: d.costCapUsd, subscription_tier: d.request.subscriptionTier } });

  /**
   * Asks the research service for a model's title when the user has a key for the title model. Without
   * one its answer would be the deterministic fallback the run already has (`init`): no command, no
   * reply, no second version of the run for the same title.
   */
  const titleCommand = (run: Run, d: D): Effect[] =>
    d.request.titleSource === 'user' || d.keys.gemini === undefined
      ? []
      : [{ type: 'send', message: GenerateResearchTitle, key: titleKey(d.request.titleRound), data: { runId: run.id, userId: run.userId, prompt: d.request.prompt, key: d.keys.gemini } satisfies MessageData<typeof GenerateResearchTitle> }];

  /**
   * The legs at `indexes` (their rounds already set) as one batched command (ADR 0025), sharing what is
   * left of the cost cap. Each leg is an item whose id is the command id its one-item
   * ExecuteResearchLeg would have had (`legKey`), so its replies match as before.
   */
  const sendLegs = (run: Run, d: D, indexes: readonly number[]): Effect[] => {
    const share = indexes.length === 0 ? 0 : roundUsd(remainingUsd(d) / indexes.length);
    // No step timeout here: the leg's cap runs from its pickup (`legcap` timer, set on ResearchLegStarted),
    // and the phase deadline bounds the wait in the lane; neither is cleared when retrying turns processing.
    return sendBatch(
      ExecuteResearchLegs,
      { runId: run.id, userId: run.userId, prompt: d.request.prompt, externalReports: [...d.request.externalReports], capMs: timings.legCapMs },
      indexes.map((index) => {
        const leg = d.legs[index] as Leg;
        return { key: legKey(index, leg.round), data: { legIndex: index, provider: leg.provider, round: leg.round, key: keyFor(d.keys, leg.provider), costCapUsd: share } };
      }),
    );
  };

  return { deadline, clearDeadline, policyLog, titleCommand, sendLegs };
}

export type ResearchCommands = ReturnType<typeof researchCommands>;
