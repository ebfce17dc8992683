import { defineBatchCommand } from '@openpaw/contracts';
import { z } from 'zod';
import { sendBatch } from './batch-effects.js';
import type { SagaDefinition } from './definition.js';
import { commandIdFor } from './engine-ids.js';
import { scenario } from './scenario.js';

const WorkItems = defineBatchCommand('unit', 'WorkItems', 1, { shared: { topic: z.string() }, item: { n: z.int() }, maxItems: 4 }, 'unit test batch');

/** Starts by sending three items as one batch: two with a step timeout, one without. */
const fanOut: SagaDefinition<'NEW' | 'WORKING' | 'DONE', { readonly topic: string }> = {
  type: 'unit_fan_out',
  states: ['NEW', 'WORKING', 'DONE'],
  initial: 'NEW',
  transitions: { NEW: ['WORKING'], WORKING: ['DONE'] },
  terminal: ['DONE'],
  inputs: [],
  init: () => ({ topic: 'copper' }),
  decide: (run, input) =>
    input.kind === 'start'
      ? {
          outcome: 'transition',
          to: 'WORKING',
          data: run.data,
          effects: sendBatch(WorkItems, { topic: run.data.topic }, [
            { key: 'item:0', data: { n: 0 }, timeout: { afterMs: 1_000, maxResends: 1 } },
            { key: 'item:1', data: { n: 1 } },
            { key: 'item:2', data: { n: 2 }, timeout: { afterMs: 1_000, maxResends: 1 } },
          ]),
        }
      : { outcome: 'ignore', reason: 'not for me' },
  view: (run) => ({ state: run.state }),
};

describe('sendBatch (ADR 0025, given / when / then)', () => {
  it('given a decision sending three items, then one command carries them, each with the id its one-item command would have', () => {
    const s = scenario(fanOut);
    const step = s.givenStarted({});
    const batches = step.messages().filter((m) => m.envelope.type === WorkItems.subject);
    expect(batches).toHaveLength(1);
    expect(step.sentItems(WorkItems)).toEqual([0, 1, 2].map((n) => ({ topic: 'copper', n, itemId: commandIdFor(s.run.id, 1, `item:${n}`) })));
  });

  it('then each item with a timeout has its own step timer, whose re-send is the item alone under its item id', () => {
    const s = scenario(fanOut);
    const step = s.givenStarted({});
    const timers = step.applied.timers.flatMap((t) => (t.op === 'set' && t.name.startsWith('resend:') ? [t] : []));
    expect(timers.map((t) => t.name)).toEqual(['resend:item:0', 'resend:item:2']);
    for (const [timer, n] of [[timers[0], 0], [timers[1], 2]] as const) {
      const envelope = timer?.payload['envelope'] as { id: string; type: string; data: { items: unknown[] } };
      const itemId = commandIdFor(s.run.id, 1, `item:${n}`);
      expect(envelope).toMatchObject({ id: itemId, type: WorkItems.subject, data: { topic: 'copper', items: [{ itemId, n }] } });
    }
  });

  it('when the item timer fires and the command was lost, then the one-item batch is re-sent', () => {
    const s = scenario(fanOut);
    const started = s.givenStarted({});
    const timer = started.applied.timers.find((t) => t.op === 'set' && t.name === 'resend:item:2');
    if (timer?.op !== 'set') throw new Error('no timer');
    s.advance(1_000);
    const step = s.when({ kind: 'timer', name: timer.name, payload: { ...timer.payload, observation: { receipt: null, laneBacklog: 0 } } });
    const itemId = commandIdFor(s.run.id, 1, 'item:2');
    expect(step.messages().map((m) => [m.envelope.id, m.msgId, (m.envelope.data as { items: unknown[] }).items.length])).toEqual([[itemId, itemId, 1]]);
  });

  it('given no items, then nothing is sent', () => {
    expect(sendBatch(WorkItems, { topic: 'copper' }, [])).toEqual([]);
  });
});
