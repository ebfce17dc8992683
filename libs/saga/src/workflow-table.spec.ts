import { defineCommand, defineEvent } from '@openpaw/contracts';
import { z } from 'zod';
import type { SagaDefinition } from './definition.js';
import { scenario } from './scenario.js';
import { decideByTable, inputKeyOf, onEvent, onStart, onTimer, transitionsOf, type WorkflowTable } from './workflow-table.js';

const Ping = defineCommand('tabletest', 'Ping', 1, z.object({ n: z.int() }), 'test command');
const Ponged = defineEvent('tabletest', 'Ponged', 1, z.object({ n: z.int() }), 'test event');

type S = 'NEW' | 'WAITING' | 'DONE' | 'FAILED' | 'CANCELLED';
type D = { readonly n: number; readonly pongs: number };

const table: WorkflowTable<S, D> = {
  NEW: [onStart(['WAITING'], (run) => ({ outcome: 'transition', to: 'WAITING', data: run.data, effects: [{ type: 'send', message: Ping, data: { n: run.data.n }, key: 'ping' }] }))],
  WAITING: [
    onEvent(Ponged, ['DONE'], (run, event) =>
      event.data.n === 0
        ? // A bug: FAILED is not a target of this row.
          { outcome: 'transition', to: 'FAILED', data: run.data }
        : { outcome: 'transition', to: 'DONE', data: { ...run.data, pongs: run.data.pongs + 1 } },
    ),
    onTimer('timeout:ping', ['FAILED'], (run) => ({ outcome: 'transition', to: 'FAILED', data: run.data })),
  ],
};

const definition: SagaDefinition<S, D> = {
  type: 'table_test',
  states: ['NEW', 'WAITING', 'DONE', 'FAILED', 'CANCELLED'],
  initial: 'NEW',
  transitions: transitionsOf(table, { from: ['NEW', 'WAITING'], to: 'CANCELLED' }),
  terminal: ['DONE', 'FAILED', 'CANCELLED'],
  cancelledState: 'CANCELLED',
  inputs: [Ponged],
  init: (input) => ({ n: Number(input['n']), pongs: 0 }),
  decide: decideByTable('table_test', table),
  view: (run) => ({ state: run.state }),
};

describe('workflow tables (the idiom: state → input → targets → decision)', () => {
  it('derives the transition table from the rows, with the engine cancel edge', () => {
    expect(definition.transitions).toEqual({ NEW: ['WAITING', 'CANCELLED'], WAITING: ['DONE', 'FAILED', 'CANCELLED'] });
  });

  it('lets the row of (state, input) decide', () => {
    const s = scenario(definition);
    expect(s.givenStarted({ n: 3 }).state).toBe('WAITING');
    const done = s.when(s.event(Ponged, { n: 3 }));
    expect(done.state).toBe('DONE');
    expect(done.data).toEqual({ n: 3, pongs: 1 });
  });

  it('ignores (and logs) an input with no row in the current state', () => {
    const s = scenario(definition);
    s.givenStarted({ n: 3 });
    const step = s.when({ kind: 'timer', name: 'retry:ping', payload: {} });
    expect(step.outcome).toBe('ignored');
    expect(step.state).toBe('WAITING');
  });

  it('refuses a decision that moves to a state its row did not declare', () => {
    const s = scenario(definition);
    s.givenStarted({ n: 3 });
    const step = s.when(s.event(Ponged, { n: 0 }));
    expect(step.outcome).toBe('refused');
    expect(step.state).toBe('WAITING');
  });

  it('keys timers by their family: the name without trailing try numbers', () => {
    expect(inputKeyOf({ kind: 'timer', name: 'timeout:ping:3', payload: {} })).toBe('timer:timeout:ping');
    expect(inputKeyOf({ kind: 'timer', name: 'deadline', payload: {} })).toBe('timer:deadline');
    const s = scenario(definition);
    s.givenStarted({ n: 3 });
    expect(s.when({ kind: 'timer', name: 'timeout:ping:1', payload: {} }).state).toBe('FAILED');
  });

  it('refuses two rows for one input in one state', () => {
    expect(() => decideByTable('dup', { NEW: [onTimer('x', [], (run) => ({ outcome: 'stay', data: run.data })), onTimer('x', [], (run) => ({ outcome: 'stay', data: run.data }))] })).toThrow(
      'dup: two rows for timer:x in NEW',
    );
  });
});
