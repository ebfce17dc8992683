import { defineCommand, InputRefused } from '@openpaw/contracts';
import { z } from 'zod';
import type { SagaDefinition } from './definition.js';
import { scenario } from './scenario.js';
import { isAllowed, validateDefinition } from './transition-table.js';
import { decideByTable, onHuman, onStart, onTimer, transitionsOf, type WorkflowTable } from './workflow-table.js';

const Work = defineCommand('reopentest', 'Work', 1, z.object({ round: z.int() }), 'test command');
const Stop = defineCommand('reopentest', 'Stop', 1, z.object({ reason: z.string() }), 'test command');

type S = 'WORKING' | 'DONE' | 'FAILED';
type D = { readonly rounds: number; readonly error: string | null };

const table: WorkflowTable<S, D> = {
  WORKING: [
    onStart([], (run) => ({ outcome: 'stay', data: run.data, effects: [{ type: 'send', message: Work, data: { round: 1 }, key: 'work:1' }] })),
    onTimer('give-up', ['FAILED'], (run) => ({ outcome: 'transition', to: 'FAILED', data: { ...run.data, error: 'gave up' } })),
  ],
  FAILED: [
    onHuman('retry', ['WORKING'], (run) =>
      run.data.error === 'cancelled'
        ? { outcome: 'refuse', reason: 'cancelled runs are not retried' }
        : { outcome: 'transition', to: 'WORKING', data: { rounds: run.data.rounds + 1, error: null } },
    ),
  ],
};

const definition: SagaDefinition<S, D> = {
  type: 'reopen_test',
  states: ['WORKING', 'DONE', 'FAILED'],
  initial: 'WORKING',
  transitions: transitionsOf(table, { from: ['WORKING'], to: 'FAILED' }),
  terminal: ['DONE', 'FAILED'],
  cancelledState: 'FAILED',
  reopenableBy: { FAILED: ['retry'] },
  onCancel: (run, reason) => ({ data: { ...run.data, error: 'cancelled' }, effects: [{ type: 'send', message: Stop, data: { reason: reason ?? 'none' }, key: 'stop' }] }),
  inputs: [],
  init: () => ({ rounds: 1, error: null }),
  decide: decideByTable('reopen_test', table),
  view: (run) => ({ state: run.state }),
};

describe('reopenable terminal states and the cancel hook', () => {
  it('allows the reopening rows out of a terminal state, and nothing else', () => {
    expect(() => validateDefinition(definition)).not.toThrow();
    expect(isAllowed(definition, 'FAILED', 'WORKING')).toBe(true);
    expect(isAllowed(definition, 'DONE', 'WORKING')).toBe(false);
    expect(() => validateDefinition({ ...definition, reopenableBy: { WORKING: ['retry'] } })).toThrow('reopenable state WORKING must be terminal');
    expect(() => validateDefinition({ ...definition, reopenableBy: {} })).toThrow('terminal state FAILED has outgoing transitions');
  });

  it('given a failed run, when the owner retries, then it is reopened with its data; other human inputs are refused as terminal', () => {
    const s = scenario(definition);
    s.givenStarted();
    expect(s.when({ kind: 'timer', name: 'give-up', payload: {} }).state).toBe('FAILED');
    const other = s.when({ kind: 'human', userId: 'user-1', inputType: 'proceed', payload: {} });
    expect(other.outcome).toBe('refused');
    expect(other.sent(InputRefused)).toEqual([expect.objectContaining({ reason: 'terminal' })]);
    const stranger = s.when({ kind: 'human', userId: 'user-2', inputType: 'retry', payload: {} });
    expect(stranger.sent(InputRefused)).toEqual([expect.objectContaining({ reason: 'not_owner' })]);
    const reopened = s.when({ kind: 'human', userId: 'user-1', inputType: 'retry', payload: {} });
    expect(reopened.state).toBe('WORKING');
    expect(reopened.data).toEqual({ rounds: 2, error: null });
    expect(s.run.attemptNo).toBe(1);
  });

  it('given a running run, when the owner cancels, then the hook sets the data and sends its effects; the cancelled run cannot be reopened by a refusing row', () => {
    const s = scenario(definition);
    s.givenStarted();
    const cancelled = s.when({ kind: 'cancel', userId: 'user-1', reason: 'changed my mind' });
    expect(cancelled.state).toBe('FAILED');
    expect(cancelled.data).toEqual({ rounds: 1, error: 'cancelled' });
    expect(cancelled.sent(Stop)).toEqual([{ reason: 'changed my mind' }]);
    const retry = s.when({ kind: 'human', userId: 'user-1', inputType: 'retry', payload: {} });
    expect(retry.outcome).toBe('refused');
    expect(retry.state).toBe('FAILED');
    // A second cancel of a terminal run is refused before any hook runs.
    expect(s.when({ kind: 'cancel', userId: 'user-1' }).sent(InputRefused)).toEqual([expect.objectContaining({ reason: 'terminal' })]);
  });
});
