import { EdgeRefuted, EdgeVerified, type MessageData, RunEnded, VerifyEdge, visualDegreesView, type VisualWorldInfo } from '@openpaw/contracts';
import { RUN_DEADLINE_TIMER } from '@openpaw/saga';
import { SagaDriver } from '../testing/saga-driver.js';
import { decideGuarded } from './visual-degrees.guards.js';
import type { Run } from './visual-degrees.outcomes.js';
import { visualDegreesDefinition } from './visual-degrees.definition.js';
import type { VisualDegreesData } from './visual-degrees.data.js';

// How a run ends besides S6/S7's search outcomes: the world it says it searched, a name that world does
// not know, an owner's cancel, the runtime budget, and a fault of the workflow itself.

const definition = visualDegreesDefinition();
const ADA = { name: 'Ada Stone', celebrityId: 'c-ada' };
const BEA = { name: 'Bea North', celebrityId: 'c-bea' };
const WORLD: VisualWorldInfo = { kind: 'local_demo', seed: 7, people: 24, description: 'local demo world of 24 invented people' };
const usage = (searchCalls: number, recognitionCalls: number) => ({ searchCalls, recognitionCalls, imagesSkipped: 0, cacheHit: false });
const image = { imageUrl: 'local-world://photo/p1', sourcePageUrl: 'local-world://page/p1', query: 'Ada Stone Bea North', phash: '0123456789abcdef', confidenceFrom: 97, confidenceTo: 91 };

const data = (d: SagaDriver): VisualDegreesData => d.s.run.data as VisualDegreesData;
const started = (from = ADA.name, to = BEA.name): SagaDriver => {
  const d = new SagaDriver(definition);
  d.start({ from, to });
  return d;
};
const refutedDirect = (d: SagaDriver, over: Partial<MessageData<typeof EdgeRefuted>> = {}) =>
  d.reply(VerifyEdge, EdgeRefuted, { step: data(d).stepNo, from: { name: data(d).from.name }, to: { name: data(d).to.name }, reason: 'no_evidence', partialEvidence: [], usage: usage(1, 5), ...over });

describe('visual_degrees: how a run ends', () => {
  describe('an honest local world', () => {
    it('when the service says it searched the local demo world, then the status, `final` and the view say so', () => {
      const d = started();
      const s = d.reply(VerifyEdge, EdgeVerified, { step: 1, edge: { from: ADA, to: BEA, edgeConf: 91, evidence: [image] }, usage: usage(1, 5), world: WORLD });
      expect(s.state).toBe('SUCCEEDED');
      const events = data(d).events;
      expect(events.find((e) => e.type === 'status' && e.data.message.includes('local demo world'))).toMatchObject({ data: { message: 'Searching the local demo world of 24 invented people (seed 7).' } });
      expect(events.at(-1)).toMatchObject({ type: 'final', data: { path: [ADA.name, BEA.name], world: WORLD } });
      expect(visualDegreesView.parse(s.view())).toMatchObject({ world: WORLD });
    });

    it('when nothing names a world (the real web), then no event claims one', () => {
      const d = started();
      d.reply(VerifyEdge, EdgeVerified, { step: 1, edge: { from: ADA, to: BEA, edgeConf: 91, evidence: [image] }, usage: usage(1, 5) });
      expect(JSON.stringify(data(d).events)).not.toContain('invented');
      expect(data(d).events.at(-1)).toMatchObject({ type: 'final' });
      expect(data(d).events.at(-1)?.data).not.toHaveProperty('world');
      expect(data(d).world).toBeUndefined();
    });

    it('when S1 finds a name the local demo world does not know, then S7 `unknown_person` lists the names it knows, and nothing more is searched', () => {
      const d = started('Ada Stone', 'Taylor Swift');
      const known = ['Ada Stone', 'Bea North', 'Cy Vale'];
      const s = refutedDirect(d, { usage: usage(0, 0), world: WORLD, notInWorld: { names: ['Taylor Swift'], known } });
      expect(s.state).toBe('FAILED');
      expect(s.messages()).toEqual([]);
      expect(s.sent(RunEnded)).toHaveLength(1);
      expect(data(d).events.at(-1)).toMatchObject({
        type: 'no_path',
        data: {
          reason: 'unknown_person',
          message: '"Taylor Swift" is not in the local demo world of 24 invented people; it knows Ada Stone, Bea North, Cy Vale.',
          unknownNames: ['Taylor Swift'],
          knownNames: known,
          world: WORLD,
        },
      });
      expect(visualDegreesView.parse(s.view())).toMatchObject({ failure: { reason: 'unknown_person', unknownNames: ['Taylor Swift'], knownNames: known }, world: WORLD });
    });

    it('when no chain is found in the local demo world, then `no_path` says which world it searched', () => {
      const d = started();
      refutedDirect(d, { world: WORLD });
      const s = d.fire(RUN_DEADLINE_TIMER);
      expect(s.state).toBe('FAILED');
      expect(data(d).events.at(-1)).toMatchObject({
        type: 'no_path',
        data: { reason: 'runtime_budget_exhausted', message: 'No verified visual connection found within 6 degrees at ≥80% confidence in the local demo world of 24 invented people.', world: WORLD },
      });
    });
  });

  describe('cancellation and the runtime budget stop the step in flight', () => {
    it('when the owner cancels mid-run, then a `cancelled` event ends the stream and RunEnded asks the service to abort its step', () => {
      const d = started();
      refutedDirect(d);
      const s = d.cancel();
      expect(s.state).toBe('CANCELLED');
      expect(data(d).events.at(-1)).toMatchObject({ type: 'cancelled', data: { message: 'The investigation was cancelled.', hopDepth: 0, used: { searchCalls: 1, recognitionCalls: 5 } } });
      expect(s.sent(RunEnded)).toEqual([{ runId: d.runId, workflowType: 'visual_degrees', state: 'CANCELLED', reason: 'cancelled' }]);
      expect(visualDegreesView.parse(s.view()).events.at(-1)?.type).toBe('cancelled');
    });

    it('when the runtime budget runs out, then S7 says so and RunEnded asks the service to abort its step', () => {
      const d = started();
      const s = d.fire(RUN_DEADLINE_TIMER);
      expect(s.state).toBe('FAILED');
      expect(s.sent(RunEnded)).toEqual([{ runId: d.runId, workflowType: 'visual_degrees', state: 'FAILED', reason: 'runtime_budget_exhausted' }]);
    });

    it('when the run succeeds, then nothing is left to abort and no RunEnded is published', () => {
      const d = started();
      const s = d.reply(VerifyEdge, EdgeVerified, { step: 1, edge: { from: ADA, to: BEA, edgeConf: 91, evidence: [image] }, usage: usage(1, 5) });
      expect(s.sent(RunEnded)).toEqual([]);
    });
  });

  describe('an unexpected error', () => {
    it('when a decision throws, then the run ends FAILED with an `error` event carrying the reason, not `no_path`', () => {
      const d = started();
      const run = d.s.run as unknown as Run;
      const decision = decideGuarded(run, { kind: 'timer', name: 'anything', payload: {} }, { now: new Date('2026-01-01T00:00:05Z') }, () => {
        throw new TypeError('frontier is undefined');
      });
      expect(decision).toMatchObject({ outcome: 'transition', to: 'FAILED' });
      if (decision.outcome !== 'transition') return;
      expect(decision.data.events.at(-1)).toMatchObject({ type: 'error', data: { code: 'unexpected_error', reason: 'TypeError: frontier is undefined', message: 'The investigation stopped on an unexpected error.' } });
      expect(decision.data.events.some((e) => e.type === 'no_path')).toBe(false);
      expect(decision.effects).toContainEqual(expect.objectContaining({ type: 'publish', message: RunEnded, data: expect.objectContaining({ state: 'FAILED', reason: 'unexpected_error' }) }));
    });
  });
});
