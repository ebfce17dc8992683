import { defineCommand, defineEvent } from '@openpaw/contracts';
import { z } from 'zod';
import { eventOf, type SagaDefinition } from '../definition.js';

// A small definition exercising every engine path, for this lib's own specs (not exported).
export const Work = defineCommand('unit', 'Work', 1, z.object({ n: z.int() }), 'unit test command');
export const Worked = defineEvent('unit', 'Worked', 1, z.object({ n: z.int(), ok: z.boolean() }), 'unit test event');

export type S = 'NEW' | 'WORKING' | 'REVIEW' | 'DONE' | 'FAILED' | 'CANCELLED';
export interface D {
  readonly n: number;
  readonly log: readonly string[];
}

/** A two-step definition exercising every engine path; REVIEW cannot be cancelled. */
export const twoStepDefinition: SagaDefinition<S, D> = {
  type: 'unit_two_step',
  states: ['NEW', 'WORKING', 'REVIEW', 'DONE', 'FAILED', 'CANCELLED'],
  initial: 'NEW',
  transitions: { NEW: ['WORKING', 'CANCELLED'], WORKING: ['REVIEW', 'FAILED', 'CANCELLED'], REVIEW: ['DONE', 'FAILED'] },
  terminal: ['DONE', 'FAILED', 'CANCELLED'],
  cancelledState: 'CANCELLED',
  retryableFrom: ['FAILED'],
  inputs: [Worked],
  init: (input) => ({ n: z.int().parse(input['n']), log: [] }),
  decide(run, input) {
    if (input.kind === 'start') {
      return {
        outcome: 'transition',
        to: 'WORKING',
        data: run.data,
        logs: [{ step: 'policy_applied', payload: { retry_max: 2 } }],
        effects: [{ type: 'send', message: Work, key: 'work', data: { n: run.data.n }, timeout: { afterMs: 1000, maxResends: 1 } }],
      };
    }
    const worked = eventOf(input, Worked);
    if (worked !== undefined) {
      if (!worked.data.ok) return { outcome: 'transition', to: 'FAILED', data: run.data };
      if (run.state === 'WORKING') return { outcome: 'transition', to: 'REVIEW', data: { ...run.data, log: [...run.data.log, 'worked'] } };
      // Jumping back is not in the table: the engine must refuse it.
      return { outcome: 'transition', to: 'WORKING', data: run.data };
    }
    if (input.kind === 'human' && input.inputType === 'approve') return { outcome: 'transition', to: 'DONE', data: run.data };
    if (input.kind === 'timer' && input.name === 'timeout:work') return { outcome: 'transition', to: 'FAILED', data: run.data, step: 'work_timed_out' };
    return { outcome: 'ignore', reason: 'not for me' };
  },
  view: (run) => ({ n: run.data.n, log: run.data.log }),
};

