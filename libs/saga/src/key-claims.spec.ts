import { replayRun } from './replay.js';
import type { KeyHolder, SagaDefinition } from './definition.js';
import { KEY_HOLDER_ENDED_TIMER_PREFIX, keyHolderEndedPayload } from './key-claims.js';
import type { StepLogRecord } from './records.js';
import { scenario } from './scenario.js';
import { claimingDefinition } from './testing/claiming-definition.js';
import { twoStepDefinition, Work } from './testing/two-step-definition.js';
import { validateDefinition } from './transition-table.js';

const holderRunId = '00000000-0000-4000-8000-0000000000aa';
const holder = (state: string, terminal: boolean, view: Record<string, unknown> = {}): KeyHolder => ({ runId: holderRunId, state, attemptNo: 1, terminal, view });

describe('idempotency key claims (the pure engine side)', () => {
  it('given a decision with claimKey, when applied, then the claim is handed to the store and logged', () => {
    const s = scenario(claimingDefinition);
    const started = s.givenStarted({ key: 'k1', n: 3 });
    expect(started.state).toBe('CLAIMING');
    expect(started.applied.claims).toEqual([expect.objectContaining({ runId: s.runId, workflowType: 'unit_claiming', userId: s.userId, key: 'k1' })]);
    expect(started.steps()).toContain('key_claim_requested');
  });

  it('given the key claimed, then the run carries on', () => {
    const s = scenario(claimingDefinition);
    s.givenStarted({ key: 'k1', n: 3 });
    const claimed = s.when({ kind: 'claim', key: 'k1', outcome: 'claimed' });
    expect(claimed.state).toBe('WORKING');
    expect(claimed.sent(Work)).toEqual([{ n: 3 }]);
  });

  it('given the key held by a run still going, then the run waits; when the holder ends DONE (a due timer), it answers with its result', () => {
    const s = scenario(claimingDefinition);
    const logs: StepLogRecord[] = [...s.givenStarted({ key: 'k1', n: 3 }).applied.logs];
    const held = s.when({ kind: 'claim', key: 'k1', outcome: 'held', holder: holder('WORKING', false) });
    logs.push(...held.applied.logs);
    expect(held.state).toBe('CLAIMING');
    expect(held.messages()).toEqual([]);
    const ended = s.when({ kind: 'timer', name: `${KEY_HOLDER_ENDED_TIMER_PREFIX}k1`, payload: keyHolderEndedPayload('k1', holder('DONE', true, { result: 6 })) });
    logs.push(...ended.applied.logs);
    expect(ended.state).toBe('DONE');
    expect(ended.view()).toEqual({ state: 'DONE', result: 6, answered_from: holderRunId });
    expect(ended.steps()).toEqual(['answered_from_holder']);
    // The step log replays: the timer is recorded as it came, and read as the claim's news again.
    expect(replayRun(claimingDefinition, s.run, logs)).toMatchObject({ ok: true, finalState: 'DONE' });
  });

  it('given the holder it waited for FAILED, then the run claims the key again', () => {
    const s = scenario(claimingDefinition);
    s.givenStarted({ key: 'k1', n: 3 });
    s.when({ kind: 'claim', key: 'k1', outcome: 'held', holder: holder('WORKING', false) });
    const released = s.when({ kind: 'timer', name: `${KEY_HOLDER_ENDED_TIMER_PREFIX}k1`, payload: keyHolderEndedPayload('k1', holder('FAILED', true)) });
    expect(released.state).toBe('CLAIMING');
    expect(released.applied.claims.map((c) => c.key)).toEqual(['k1']);
  });

  it('given a finished run, when a holder-ended timer comes late, then it is ignored', () => {
    const s = scenario(claimingDefinition);
    s.givenStarted({ key: 'k1', n: 3 });
    s.when({ kind: 'cancel', userId: s.userId });
    const late = s.when({ kind: 'timer', name: `${KEY_HOLDER_ENDED_TIMER_PREFIX}k1`, payload: keyHolderEndedPayload('k1', holder('DONE', true, { result: 6 })) });
    expect(late.outcome).toBe('ignored');
    expect(late.state).toBe('CANCELLED');
  });

  it('refuses a claimKey from a definition that declares no keyClaims', () => {
    const { keyClaims: _declared, ...undeclared } = claimingDefinition;
    const s = scenario({ ...undeclared, type: 'unit_claiming_undeclared' });
    const started = s.givenStarted({ key: 'k1', n: 3 });
    expect(started.outcome).toBe('refused');
    expect(started.applied.claims).toEqual([]);
    expect(started.state).toBe('NEW');
  });

  it('refuses a definition whose key-releasing state is not terminal', () => {
    const broken: SagaDefinition<string, unknown> = { ...twoStepDefinition, keyClaims: { releasedIn: ['WORKING'] } };
    expect(() => validateDefinition(broken)).toThrow(/key-releasing state WORKING must be terminal/);
  });
});
