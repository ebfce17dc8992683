import type { Envelope } from '@openpaw/contracts';
import type { Applied, BatchResult, OutboxRecord, PendingInput, RunRecord } from '@openpaw/saga';
import { DecisionClock, REMEMBERED_DECISIONS, stepsReport } from './step-report.js';

const run = (id: string, type: string): RunRecord => ({
  id,
  type,
  state: 'S',
  attemptNo: 1,
  idempotencyKey: id,
  userId: 'u1',
  parentRunId: null,
  data: {},
  version: 2,
  createdAt: new Date(0),
  updatedAt: new Date(0),
});

const envelope = (id: string, type: string, correlationid: string, causationid?: string): Envelope => ({
  specversion: '1.0',
  id,
  source: '/test',
  type,
  time: new Date(0).toISOString(),
  datacontenttype: 'application/json',
  dataschema: 'x',
  data: {},
  correlationid,
  ...(causationid === undefined ? {} : { causationid }),
});

const record = (id: string, type: string, runId: string): OutboxRecord => ({ msgId: id, envelope: envelope(id, type, runId) });

const applied = (runRecord: RunRecord, step: string | undefined): Applied => ({
  outcome: 'applied',
  run: runRecord,
  changed: true,
  ...(step === undefined ? {} : { transition: { from: 'A', to: 'S', step } }),
  logs: [],
  outbox: [],
  timers: [],
  claims: [],
});

const reply = (runId: string, causationId: string): PendingInput => ({
  kind: 'input',
  meta: { messageId: `reply-${causationId}`, runId },
  input: { kind: 'event', envelope: envelope(`reply-${causationId}`, 'openpaw.evt.unit.Done.v1', runId, causationId) },
});

describe('step reports', () => {
  it("times a reply's step from the commit of the decision that sent its command, and from its arrival", () => {
    const clock = new DecisionClock();
    const decided = stepsReport([], { results: [], outbox: [record('cmd-1', 'openpaw.cmd.unit.Do.v1', 'r1'), record('evt-1', 'openpaw.evt.unit.Noted.v1', 'r1')] }, clock, 1_000, undefined);
    expect(decided.steps).toEqual([]);

    const batch: Pick<BatchResult, 'results' | 'outbox'> = {
      results: [
        { status: 'applied', applied: applied(run('r1', 'Alpha'), 'openpaw.evt.unit.Done.v1') },
        { status: 'duplicate' },
        { status: 'applied', applied: applied(run('r2', 'Beta'), undefined) },
      ],
      outbox: [record('cmd-2', 'openpaw.cmd.unit.Do.v1', 'r1'), record('chg-1', 'openpaw.evt.workflow.RunStateChanged.v2', 'r1'), record('chg-2', 'openpaw.evt.workflow.RunStateChanged.v2', 'r2')],
    };
    const report = stepsReport([reply('r1', 'cmd-1'), reply('r1', 'cmd-1'), reply('r2', 'unknown')], batch, clock, 1_250, 1_200);
    expect(report.steps).toEqual([{ workflowType: 'Alpha', step: 'openpaw.evt.unit.Done.v1', receivedAt: 1_200, decidedAt: 1_000 }]);
    expect([...report.messagesOut]).toEqual([
      ['Alpha', 2],
      ['Beta', 1],
    ]);
    // Timed once: a redelivered reply finds no decision; an event is not a command.
    expect(clock.take('cmd-1')).toBeUndefined();
    expect(clock.take('evt-1')).toBeUndefined();
    expect(clock.take('cmd-2')).toBe(1_250);
  });

  it('keeps the first decision time of a re-sent command, and forgets the oldest beyond its bound', () => {
    const clock = new DecisionClock();
    clock.noteCommitted([record('cmd-a', 'openpaw.cmd.unit.Do.v1', 'r')], 10);
    clock.noteCommitted([record('cmd-a', 'openpaw.cmd.unit.Do.v1', 'r')], 20);
    clock.noteCommitted(
      Array.from({ length: REMEMBERED_DECISIONS }, (_, i) => record(`cmd-${i}`, 'openpaw.cmd.unit.Do.v1', 'r')),
      30,
    );
    expect(clock.take('cmd-a')).toBeUndefined();
    expect(clock.take(`cmd-${REMEMBERED_DECISIONS - 1}`)).toBe(30);
    clock.noteCommitted([record('cmd-b', 'openpaw.cmd.unit.Do.v1', 'r')], 40);
    expect(clock.take('cmd-b')).toBe(40);
  });
});
