import { PaperSearchStepFailed, type PAPER_SEARCH_STEPS } from '@openpaw/contracts';
import { type Reply, replyTo } from '@openpaw/messaging';
import { skillFailure } from '../paper-search/skills/skill-failure.js';

/** A command as its handler receives it: the envelope id (reply ids derive from it) and the data. */
export interface ResearchCommand<D> {
  readonly commandId: string;
  readonly data: D;
}

/**
 * Runs a skill under the step's deadline; a skill's own failure (model unavailable, invalid output,
 * cost cap, timeout) becomes PaperSearchStepFailed, anything else is thrown (and redelivered).
 */
export async function withSkillFailure(
  command: ResearchCommand<{ readonly runId: string }>,
  step: (typeof PAPER_SEARCH_STEPS)[number],
  deadlineMs: number,
  run: (signal: AbortSignal) => Promise<Reply>,
): Promise<Reply> {
  const deadline = AbortSignal.timeout(deadlineMs);
  try {
    return await run(deadline);
  } catch (error) {
    const failure = skillFailure(error, deadline);
    if (failure === undefined) throw error;
    return replyTo(command.commandId, PaperSearchStepFailed, { runId: command.data.runId, commandId: command.commandId, step, ...failure });
  }
}
