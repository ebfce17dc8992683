import { checkAgainstBaseline, formatReports, incompatibilities } from './compat.js';

const uuid = { type: 'string', format: 'uuid' };
const base = {
  type: 'object',
  properties: { runId: uuid, mode: { type: 'string', enum: ['async', 'sync'] }, note: { type: 'string', maxLength: 100 } },
  required: ['runId', 'mode'],
};

function withProps(props: Record<string, unknown>, required: string[] = base.required): Record<string, unknown> {
  return { ...base, properties: { ...base.properties, ...props }, required };
}

const problems = (now: Record<string, unknown>, kind: 'command' | 'event'): string[] =>
  incompatibilities(base, now, kind).map((p) => `${p.path}: ${p.problem}`);

describe('schema compatibility within one subject version', () => {
  it('allows additive changes: a new optional property (both), a new required property on an event, an unchanged schema', () => {
    expect(problems(base, 'event')).toEqual([]);
    expect(problems(withProps({ extra: { type: 'integer' } }), 'command')).toEqual([]);
    expect(problems(withProps({ extra: { type: 'integer' } }, [...base.required, 'extra']), 'event')).toEqual([]);
  });

  it('refuses removals, optionality flips and type changes', () => {
    const { note: _note, ...rest } = base.properties;
    expect(problems({ ...base, properties: rest }, 'event')).toEqual(['/note: property removed']);
    expect(problems(withProps({}, ['runId']), 'event')).toEqual(['/mode: required property became optional']);
    expect(problems(withProps({}, [...base.required, 'note']), 'command')).toEqual(['/note: optional property became required']);
    expect(problems(withProps({ runId: { type: 'integer' } }), 'event')).toEqual(['/runId: type changed from "string" to "integer"', '/runId: format changed from "uuid" to none']);
    expect(problems(withProps({ extra: { type: 'string' } }, [...base.required, 'extra']), 'command')).toEqual(['/extra: new required property on a command']);
  });

  it('enum values: never removed; added only to a command', () => {
    expect(problems(withProps({ mode: { type: 'string', enum: ['async'] } }), 'command')).toEqual(['/mode: enum values removed: "sync"']);
    expect(problems(withProps({ mode: { type: 'string', enum: ['async', 'sync', 'batch'] } }), 'command')).toEqual([]);
    expect(problems(withProps({ mode: { type: 'string', enum: ['async', 'sync', 'batch'] } }), 'event')).toEqual(['/mode: enum values added to an event: "batch"']);
  });

  it('bounds: tighter never; looser only on a command', () => {
    expect(problems(withProps({ note: { type: 'string', maxLength: 50 } }), 'command')).toEqual(['/note: maxLength changed from 100 to 50']);
    expect(problems(withProps({ note: { type: 'string', maxLength: 500 } }), 'command')).toEqual([]);
    expect(problems(withProps({ note: { type: 'string', maxLength: 500 } }), 'event')).toEqual(['/note: maxLength changed from 100 to 500']);
  });

  it('looks inside arrays and unions', () => {
    const old = { type: 'object', properties: { tags: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } } }, required: ['tags'] };
    const now = { type: 'object', properties: { tags: { type: 'array', items: { anyOf: [{ type: 'string' }] } } }, required: ['tags'] };
    expect(incompatibilities(old, now, 'command').map((p) => `${p.path}: ${p.problem}`)).toEqual(['/tags/items: anyOf variants removed (2 -> 1)']);
  });

  it('reports a removed message and says what to do', () => {
    const reports = checkAgainstBaseline(
      { 'events/evt/a/Gone.v1.schema.json': { ...base, 'x-openpaw-subject': 'openpaw.evt.a.Gone.v1', 'x-openpaw-kind': 'event' } },
      { 'events/evt/a/Gone.v2.schema.json': base },
    );
    expect(formatReports(reports)).toBe('openpaw.evt.a.Gone.v1 (events/evt/a/Gone.v1.schema.json): breaking change without a new version\n  /: message removed');
  });
});
