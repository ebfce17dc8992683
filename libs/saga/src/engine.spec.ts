import { ChildRunFinished, InputRefused, RunStateChanged, StartRun } from '@openpaw/contracts';
import type { SagaDefinition } from './definition.js';
import { replayRun } from './replay.js';
import { scenario } from './scenario.js';
import { foldTimerOperations } from './store/saga-store.js';
import { type D, type S, twoStepDefinition as definition, Work, Worked } from './testing/two-step-definition.js';
import { validateDefinition } from './transition-table.js';

describe('saga engine (given / when / then)', () => {
  describe('given a new submission', () => {
    it('when started, then it logs the policy first, moves to WORKING and sends the command with a step timeout', () => {
      const s = scenario(definition);
      const step = s.givenStarted({ n: 7 });
      expect(step.state).toBe('WORKING');
      expect(step.steps()).toEqual(['run_started', 'policy_applied', 'start']);
      expect(step.sent(Work)).toEqual([{ n: 7 }]);
      expect(step.applied.timers).toEqual([
        expect.objectContaining({ op: 'clearPrefix' }),
        expect.objectContaining({ op: 'set', name: 'resend:work' }),
      ]);
      expect(step.sent(RunStateChanged)).toEqual([expect.objectContaining({ stateBefore: null, stateAfter: 'WORKING', version: 2, terminal: false })]);
    });

    it('when the start input is invalid, then it is refused with a reason', () => {
      const step = scenario(definition).givenStarted({ n: 'seven' });
      expect(step.outcome).toBe('refused');
      expect(step.sent(InputRefused)).toEqual([expect.objectContaining({ reason: 'invalid_input' })]);
    });

    it('when started twice with the same key, then the second start is ignored', () => {
      const s = scenario(definition);
      s.givenStarted({ n: 1 });
      const again = s.givenStarted({ n: 1 });
      expect(again.outcome).toBe('ignored');
      expect(again.applied.outbox).toEqual([]);
    });
  });

  describe('given a run in WORKING', () => {
    it('when the worker succeeds, then REVIEW', () => {
      const s = scenario(definition);
      s.givenStarted({ n: 1 });
      const step = s.when(s.event(Worked, { n: 1, ok: true }));
      expect(step.state).toBe('REVIEW');
      expect(step.data).toEqual({ n: 1, log: ['worked'] });
    });

    it('when the step timer fires, then the same command is re-sent once, then the definition times out', () => {
      const s = scenario(definition);
      const started = s.givenStarted({ n: 1 });
      const sentId = started.messages()[0]?.envelope.id;
      const timer = started.applied.timers.find((t) => t.op === 'set');
      if (timer?.op !== 'set') throw new Error('no timer');
      const resent = s.when({ kind: 'timer', name: timer.name, payload: timer.payload });
      expect(resent.state).toBe('WORKING');
      expect(resent.messages().map((o) => [o.envelope.id, o.msgId])).toEqual([[sentId, `${sentId}:resend:1`]]);
      const rearmed = resent.applied.timers.find((t) => t.op === 'set');
      if (rearmed?.op !== 'set') throw new Error('not re-armed');
      const timedOut = s.when({ kind: 'timer', name: rearmed.name, payload: rearmed.payload });
      expect(timedOut.state).toBe('FAILED');
      expect(timedOut.steps()).toContain('work_timed_out');
    });

    it('when the owner cancels, then CANCELLED and every timer is cleared', () => {
      const s = scenario(definition);
      s.givenStarted({ n: 1 });
      const step = s.when({ kind: 'cancel', userId: 'user-1' });
      expect(step.state).toBe('CANCELLED');
      expect(step.applied.timers).toEqual([{ op: 'clearPrefix', runId: s.runId, prefix: '' }]);
    });

    it("when another user cancels, then it is refused as not_owner and nothing changes", () => {
      const s = scenario(definition);
      s.givenStarted({ n: 1 });
      const step = s.when({ kind: 'cancel', userId: 'intruder' });
      expect(step.outcome).toBe('refused');
      expect(step.state).toBe('WORKING');
      expect(step.sent(InputRefused)).toEqual([expect.objectContaining({ reason: 'not_owner' })]);
    });
  });

  describe('given a run in REVIEW (not cancellable by the table)', () => {
    const inReview = () => {
      const s = scenario(definition);
      s.givenStarted({ n: 1 });
      s.when(s.event(Worked, { n: 1, ok: true }));
      return s;
    };

    it('when cancelled, then refused as an illegal transition, logged, state kept', () => {
      const s = inReview();
      const step = s.when({ kind: 'cancel', userId: 'user-1' });
      expect(step.outcome).toBe('refused');
      expect(step.state).toBe('REVIEW');
      expect(step.steps()).toEqual(['transition_refused']);
      expect(step.sent(InputRefused)).toEqual([expect.objectContaining({ reason: 'illegal_transition', state: 'REVIEW' })]);
    });

    it('when the definition asks for a transition its table forbids, then it is refused and logged', () => {
      const s = inReview();
      const step = s.when(s.event(Worked, { n: 1, ok: true }));
      expect(step.outcome).toBe('refused');
      expect(step.state).toBe('REVIEW');
      expect(step.applied.logs[0]?.payload).toMatchObject({ attempted: 'WORKING' });
    });

    it('when approved by a human, then DONE; later events are ignored', () => {
      const s = inReview();
      expect(s.when({ kind: 'human', userId: 'user-1', inputType: 'approve', payload: {} }).state).toBe('DONE');
      const late = s.when(s.event(Worked, { n: 1, ok: false }));
      expect(late.outcome).toBe('ignored');
      expect(late.state).toBe('DONE');
    });
  });

  describe('given a FAILED run', () => {
    it('when started again with the same key, then attempt 2 on the same row from the initial state', () => {
      const s = scenario(definition);
      s.givenStarted({ n: 1 });
      s.when(s.event(Worked, { n: 1, ok: false }));
      const retry = s.givenStarted({ n: 1 });
      expect(retry.state).toBe('WORKING');
      expect(retry.applied.run?.attemptNo).toBe(2);
      expect(retry.steps()[0]).toBe('attempt_started');
      expect(retry.applied.logs[0]).toMatchObject({ stateBefore: 'FAILED', stateAfter: 'NEW', attemptNo: 2 });
    });
  });

  describe('child and background runs', () => {
    it('become StartRun commands with ids derived from the parent', () => {
      const parent: SagaDefinition<S, D> = {
        ...definition,
        type: 'unit_parent',
        decide: (run, input) =>
          input.kind === 'start'
            ? {
                outcome: 'transition',
                to: 'WORKING',
                data: run.data,
                effects: [
                  { type: 'startChild', workflowType: 'unit_two_step', key: 'solve', input: { n: 1 } },
                  { type: 'startBackground', workflowType: 'unit_two_step', key: 'video', input: { n: 2 } },
                ],
              }
            : { outcome: 'ignore', reason: '' },
      };
      const step = scenario(parent).givenStarted({ n: 0 });
      const starts = step.sent(StartRun);
      expect(starts).toHaveLength(2);
      expect(starts[0]?.parentRunId).toBe('00000000-0000-4000-8000-000000000001');
      expect(starts[1]?.parentRunId).toBeUndefined();
      expect(step.steps()).toEqual(['run_started', 'start', 'child_started', 'background_started']);
    });
  });

  describe('given a child run', () => {
    it('when it reaches a terminal state, then its parent is told with ChildRunFinished', () => {
      const parentRunId = '00000000-0000-4000-8000-0000000000aa';
      const s = scenario(definition);
      expect(s.givenStarted({ n: 1 }, 'child-key', parentRunId).sent(ChildRunFinished)).toEqual([]);
      const failed = s.when(s.event(Worked, { n: 1, ok: false }));
      expect(failed.sent(ChildRunFinished)).toEqual([
        { parentRunId, childRunId: s.runId, workflowType: 'unit_two_step', state: 'FAILED', view: { n: 1, log: [] } },
      ]);
    });
  });

  describe('replay', () => {
    it('feeds the step log back through the definition and gets the same states', () => {
      const s = scenario(definition);
      const logs = [
        ...s.givenStarted({ n: 3 }).applied.logs,
        ...s.when(s.event(Worked, { n: 3, ok: true })).applied.logs,
        ...s.when({ kind: 'cancel', userId: 'user-1' }).applied.logs,
        ...s.when({ kind: 'human', userId: 'user-1', inputType: 'approve', payload: {} }).applied.logs,
      ];
      const report = replayRun(definition, { id: s.runId, idempotencyKey: 'key-1', userId: 'user-1', parentRunId: null }, logs);
      expect(report).toEqual({ ok: true, finalState: 'DONE', mismatches: [] });
    });

    it('reports a log the definition would not produce', () => {
      const s = scenario(definition);
      const logs = [...s.givenStarted({ n: 3 }).applied.logs, ...s.when(s.event(Worked, { n: 3, ok: true })).applied.logs];
      const tampered = logs.map((l) => (l.stateAfter === 'REVIEW' ? { ...l, stateAfter: 'DONE' } : l));
      const report = replayRun(definition, { id: s.runId, idempotencyKey: 'key-1', userId: 'user-1', parentRunId: null }, tampered);
      expect(report.ok).toBe(false);
      expect(report.mismatches[0]?.actual).toContain('DONE');
    });
  });

  describe('definition validation', () => {
    it('rejects a table with unknown states or outgoing transitions from terminal states', () => {
      expect(() => validateDefinition({ ...definition, transitions: { ...definition.transitions, DONE: ['NEW'] } })).toThrow(/terminal state DONE/);
      expect(() => validateDefinition({ ...definition, transitions: { NEW: ['NOPE'] } })).toThrow(/unknown target/);
    });
  });

  describe('timer folding', () => {
    it('lets a clear cancel earlier sets in the batch while later sets survive', () => {
      const at = new Date(0);
      const folded = foldTimerOperations([
        { op: 'set', runId: 'r', name: 'resend:a', fireAt: at, payload: {} },
        { op: 'clearPrefix', runId: 'r', prefix: 'resend:' },
        { op: 'set', runId: 'r', name: 'resend:b', fireAt: at, payload: {} },
        { op: 'clear', runId: 'r', name: 'ttl' },
      ]);
      expect(folded.sets.map((s) => s.name)).toEqual(['resend:b']);
      expect(folded.clears).toEqual([
        { runId: 'r', prefix: 'resend:', exact: false },
        { runId: 'r', prefix: 'ttl', exact: true },
      ]);
    });
  });
});
