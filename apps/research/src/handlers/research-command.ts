import { deterministicUuid, PaperSearchStepFailed, type PAPER_SEARCH_STEPS } from '@openpaw/contracts';
import { skillFailure } from '../paper-search/skills/skill-failure.js';
import type { ReplyStore, ResearchReply } from '../ports.js';

/** A command as its handler receives it: the envelope id (reply ids derive from it) and the data. */
export interface ResearchCommand<D> {
  readonly commandId: string;
  readonly data: D;
}

/**
 * Idempotency of every research command: a redelivered command gets the reply kept the first time
 * (same event id, no second search or model call); otherwise `compute` runs and its reply is kept
 * before it is published.
 */
export async function answerOnce(replies: ReplyStore, commandId: string, compute: () => Promise<ResearchReply>): Promise<ResearchReply> {
  const kept = await replies.find(commandId);
  if (kept !== undefined) return kept;
  return replies.keep(commandId, await compute());
}

/**
 * Runs a skill under the step's deadline; a skill's own failure (model unavailable, invalid output,
 * cost cap, timeout) becomes PaperSearchStepFailed, anything else is thrown (and redelivered).
 */
export async function withSkillFailure(
  command: ResearchCommand<{ readonly runId: string }>,
  step: (typeof PAPER_SEARCH_STEPS)[number],
  deadlineMs: number,
  run: (signal: AbortSignal) => Promise<ResearchReply>,
): Promise<ResearchReply> {
  const deadline = AbortSignal.timeout(deadlineMs);
  try {
    return await run(deadline);
  } catch (error) {
    const failure = skillFailure(error, deadline);
    if (failure === undefined) throw error;
    return {
      kind: 'step_failed',
      id: deterministicUuid(command.commandId, PaperSearchStepFailed.subject),
      data: { runId: command.data.runId, commandId: command.commandId, step, ...failure },
    };
  }
}
