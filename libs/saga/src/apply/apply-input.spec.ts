import { defineEvent, InputRefused } from '@openpaw/contracts';
import { z } from 'zod';
import type { SagaDefinition } from '../definition.js';
import { scenario } from '../scenario.js';
import { validateDefinition } from '../transition-table.js';
import { decideByTable, onEvent, onStart, onTimer, transitionsOf, type WorkflowTable } from '../workflow-table.js';

const NameRemoved = defineEvent('amendtest', 'NameRemoved', 1, z.object({ name: z.string() }), 'test event');
const Unrelated = defineEvent('amendtest', 'Unrelated', 1, z.object({ note: z.string() }), 'test event');

type S = 'WORKING' | 'DONE';
type D = { readonly names: readonly string[] };

const removeName = (data: D, name: string): D => ({ names: data.names.map((n) => (n === name ? '[removed]' : n)) });

const table: WorkflowTable<S, D> = {
  WORKING: [
    onStart([], (run) => ({ outcome: 'stay', data: run.data })),
    onTimer('finish', ['DONE'], (run) => ({ outcome: 'transition', to: 'DONE', data: run.data })),
    // A running run's amendment is the definition's like any event: here, no name left ends the work.
    onEvent(NameRemoved, ['DONE'], (run, { data }) => {
      const names = removeName(run.data, data.name);
      return names.names.every((n) => n === '[removed]') ? { outcome: 'transition', to: 'DONE', data: names, step: 'nothing_left' } : { outcome: 'stay', data: names, step: 'amended' };
    }),
  ],
  DONE: [
    onEvent(NameRemoved, [], (run, { data }) =>
      data.name === 'reopen please'
        ? // A definition bug: an amendment trying to leave the terminal state.
          ({ outcome: 'transition', to: 'WORKING', data: run.data } as never)
        : run.data.names.includes(data.name)
          ? { outcome: 'stay', data: removeName(run.data, data.name), step: 'amended' }
          : { outcome: 'ignore', reason: 'the run does not name them' },
    ),
  ],
};

const definition: SagaDefinition<S, D> = {
  type: 'amend_test',
  states: ['WORKING', 'DONE'],
  initial: 'WORKING',
  transitions: transitionsOf(table),
  terminal: ['DONE'],
  amendedBy: [NameRemoved],
  inputs: [NameRemoved, Unrelated],
  init: () => ({ names: ['Ada', 'Bea'] }),
  decide: decideByTable('amend_test', table),
  view: (run) => ({ state: run.state, names: [...run.data.names] }),
};

function finished() {
  const s = scenario(definition);
  s.givenStarted();
  expect(s.when({ kind: 'timer', name: 'finish', payload: {} }).state).toBe('DONE');
  return s;
}

describe('applyInput: amendments of a finished run (data only)', () => {
  it('validates: amendments add no transition out of a terminal state', () => {
    expect(() => validateDefinition(definition)).not.toThrow();
    expect(definition.transitions).toEqual({ WORKING: ['DONE'] });
  });

  it('given a finished run, when an amendment arrives, then its data changes, its state does not, and the new view is published', () => {
    const s = finished();
    const version = s.run.version;
    const amended = s.when(s.event(NameRemoved, { name: 'Ada' }));
    expect(amended.outcome).toBe('applied');
    expect(amended.state).toBe('DONE');
    expect(amended.data).toEqual({ names: ['[removed]', 'Bea'] });
    expect(s.run.version).toBe(version + 1);
    expect(amended.view()).toEqual({ state: 'DONE', names: ['[removed]', 'Bea'] });
    expect(amended.steps()).toContain('amended');
  });

  it('given a finished run, when an amendment does not concern it, then it is ignored and nothing is published', () => {
    const s = finished();
    const version = s.run.version;
    const ignored = s.when(s.event(NameRemoved, { name: 'Cy' }));
    expect(ignored.outcome).toBe('ignored');
    expect(ignored.view()).toBeUndefined();
    expect(s.run.version).toBe(version);
  });

  it('given a finished run, when an amendment would change its state, then it is refused and the run stays as it was', () => {
    const s = finished();
    const refused = s.when(s.event(NameRemoved, { name: 'reopen please' }));
    expect(refused.outcome).toBe('refused');
    expect(refused.sent(InputRefused)).toEqual([expect.objectContaining({ reason: 'invalid_input' })]);
    expect(s.run.state).toBe('DONE');
    expect(s.run.data).toEqual({ names: ['Ada', 'Bea'] });
  });

  it('given a finished run, when an event that is not an amendment arrives, then it is ignored as before', () => {
    const s = finished();
    const late = s.when(s.event(Unrelated, { note: 'late' }));
    expect(late.outcome).toBe('ignored');
    expect(s.run.data).toEqual({ names: ['Ada', 'Bea'] });
  });
});

describe('applyInput: amendments of a running run (the definition decides)', () => {
  function running() {
    const s = scenario(definition);
    s.givenStarted();
    return s;
  }

  it('given a running run, when an amendment arrives, then the definition changes its data and it keeps running', () => {
    const s = running();
    const amended = s.when(s.event(NameRemoved, { name: 'Ada' }));
    expect(amended.outcome).toBe('applied');
    expect(amended.state).toBe('WORKING');
    expect(amended.data).toEqual({ names: ['[removed]', 'Bea'] });
  });

  it('given a running run, when an amendment leaves it nothing to work on, then the definition may move it on (a transition its table allows)', () => {
    const s = running();
    s.when(s.event(NameRemoved, { name: 'Ada' }));
    const ended = s.when(s.event(NameRemoved, { name: 'Bea' }));
    expect(ended.outcome).toBe('applied');
    expect(ended.state).toBe('DONE');
    expect(ended.steps()).toContain('nothing_left');
  });
});
