import type { CommandObservation } from './command-observation.js';
import type { JsonObject } from './definition.js';
import { scenario, type ScenarioStep } from './scenario.js';
import { twoStepDefinition as definition, Work } from './testing/two-step-definition.js';

/** The step timer a step (re-)armed, as the timer poller would fire it with an observation. */
function stepTimer(step: ScenarioStep): { readonly name: string; readonly payload: JsonObject; readonly fireAt: Date } {
  const timer = step.applied.timers.find((t) => t.op === 'set' && t.name.startsWith('resend:'));
  if (timer?.op !== 'set') throw new Error('no step timer armed');
  return timer;
}

function fired(step: ScenarioStep, observation: CommandObservation) {
  const timer = stepTimer(step);
  return { kind: 'timer' as const, name: timer.name, payload: { ...timer.payload, observation: { ...observation } } };
}

describe('queue-aware step timeouts (given / when / then)', () => {
  describe('given a command sent 1 s ago with a 1 s step timeout', () => {
    it('when it was never picked up and its lane has a backlog, then it waits: nothing re-sent, no timeout, timer re-armed', () => {
      const s = scenario(definition);
      const started = s.givenStarted({ n: 1 });
      s.advance(1_000);
      const step = s.when(fired(started, { receipt: null, laneBacklog: 250 }));
      expect(step.state).toBe('WORKING');
      expect(step.messages()).toEqual([]);
      expect(step.steps()).toEqual(['command_queued']);
      expect(step.applied.logs[0]?.payload).toMatchObject({ lane_backlog: 250, waited_ms: 1_000 });
      expect(stepTimer(step).fireAt.toISOString()).toBe(new Date(s.run.updatedAt.getTime() + 2_000).toISOString());
    });

    it('when it waits in the queue for many timer periods, then it never times out (the run deadline bounds it)', () => {
      const s = scenario(definition);
      let step = s.givenStarted({ n: 1 });
      for (let i = 0; i < 20; i += 1) {
        s.advance(1_000);
        step = s.when(fired(step, { receipt: null, laneBacklog: 3 }));
        expect(step.state).toBe('WORKING');
        expect(step.messages()).toEqual([]);
      }
    });

    it('when the lane backlog cannot be read, then it waits rather than re-sends', () => {
      const s = scenario(definition);
      const started = s.givenStarted({ n: 1 });
      s.advance(1_000);
      const step = s.when(fired(started, { receipt: null, laneBacklog: null }));
      expect(step.messages()).toEqual([]);
      expect(step.steps()).toEqual(['command_queued']);
    });

    it('when it was never picked up and its lane is empty, then it was lost: re-sent under its first id (JetStream dedups a copy still stored)', () => {
      const s = scenario(definition);
      const started = s.givenStarted({ n: 1 });
      const first = started.messages().find((m) => m.envelope.type === Work.subject);
      s.advance(1_000);
      const step = s.when(fired(started, { receipt: null, laneBacklog: 0 }));
      expect(step.steps()).toEqual(['command_lost_resent']);
      expect(step.messages().map((m) => [m.envelope.id, m.msgId])).toEqual([[first?.envelope.id, first?.envelope.id]]);
      expect(step.state).toBe('WORKING');
    });

    it('when it was picked up 300 ms ago, then the timeout runs from the pickup: re-armed 700 ms later, logged once', () => {
      const s = scenario(definition);
      const started = s.givenStarted({ n: 1 });
      s.advance(1_000);
      const pickedUpAt = new Date(s.run.updatedAt.getTime() + 700).toISOString();
      const step = s.when(fired(started, { receipt: { pickedUpAt, deliveries: 1 }, laneBacklog: 0 }));
      expect(step.messages()).toEqual([]);
      expect(step.steps()).toEqual(['command_picked_up']);
      expect(stepTimer(step).fireAt.toISOString()).toBe(new Date(Date.parse(pickedUpAt) + 1_000).toISOString());
      s.advance(300);
      const again = s.when(fired(step, { receipt: { pickedUpAt, deliveries: 1 }, laneBacklog: 0 }));
      expect(again.steps()).toEqual([]);
      expect(again.messages()).toEqual([]);
    });

    it('when it was picked up longer than the timeout ago, then the step times out as before (re-sent, then the definition decides)', () => {
      const s = scenario(definition);
      const started = s.givenStarted({ n: 1 });
      const first = started.messages().find((m) => m.envelope.type === Work.subject);
      s.advance(1_500);
      const pickedUpAt = new Date(s.run.updatedAt.getTime() + 100).toISOString();
      const resent = s.when(fired(started, { receipt: { pickedUpAt, deliveries: 1 }, laneBacklog: 0 }));
      expect(resent.steps()).toEqual(['command_resent']);
      expect(resent.messages().map((m) => m.msgId)).toEqual([`${first?.envelope.id}:resend:1`]);
      s.advance(1_500);
      const timedOut = s.when(fired(resent, { receipt: { pickedUpAt, deliveries: 1 }, laneBacklog: 0 }));
      expect(timedOut.state).toBe('FAILED');
      expect(timedOut.steps()).toContain('work_timed_out');
    });
  });

  describe('given a step whose timeout runs from the send (a step the run must not wait for)', () => {
    it('when its command is still queued at the timeout, then it times out anyway', () => {
      const sendTimed: typeof definition = {
        ...definition,
        decide: (run, input, context) => {
          const decision = definition.decide(run, input, context);
          if (decision.outcome !== 'transition' || decision.effects === undefined) return decision;
          const effects = decision.effects.map((e) => (e.type === 'send' && e.timeout !== undefined ? { ...e, timeout: { ...e.timeout, maxResends: 0, from: 'send' as const } } : e));
          return { ...decision, effects };
        },
      };
      const s = scenario(sendTimed);
      const started = s.givenStarted({ n: 1 });
      s.advance(1_000);
      const step = s.when(fired(started, { receipt: null, laneBacklog: 250 }));
      expect(step.state).toBe('FAILED');
      expect(step.steps()).toContain('work_timed_out');
    });
  });
});
