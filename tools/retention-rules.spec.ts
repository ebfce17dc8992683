import { retentionRules, stepLogArchivePolicy } from './retention-rules.js';

describe('retention rules', () => {
  it('keep dedup records longer than the streams, the duplicate window and the redelivery bound', () => {
    const rules = retentionRules({}, ['COMPLETED']);
    const inbox = rules.find((r) => r.table === 'coordinator.inbox');
    expect(inbox).toMatchObject({ horizonMs: 14 * 86_400_000, minimumHorizonMs: 7 * 86_400_000 });
    expect(rules.map((r) => r.table)).toEqual([
      'coordinator.inbox',
      'ingestion.command_replies',
      'retrieval.command_replies',
      'assets.command_replies',
      'artifacts.command_replies',
      'research.command_replies',
      'research.background_calls',
      'gateway.artifact_job_keys',
      'coordinator.timers',
    ]);
    expect(rules.find((r) => r.table === 'coordinator.timers')?.params).toEqual([['COMPLETED']]);
  });

  it('the safe minimum follows the streams: a 30-day events stream needs a longer horizon', () => {
    const rules = retentionRules({ OPENPAW_STREAM_EVENTS_MAX_AGE: '30d', OPENPAW_RETENTION_DEDUP: '20d' }, []);
    const inbox = rules.find((r) => r.table === 'coordinator.inbox');
    expect(inbox?.minimumHorizonMs).toBe(30 * 86_400_000);
    expect(inbox?.horizonMs).toBeLessThan(inbox?.minimumHorizonMs ?? 0);
  });

  it('archives step logs 30 days after their run ended unless told otherwise; `keep` keeps them in PostgreSQL', () => {
    expect(stepLogArchivePolicy({}, ['SUCCEEDED'])).toEqual({ horizonMs: 30 * 86_400_000, terminalStates: ['SUCCEEDED'] });
    expect(stepLogArchivePolicy({ OPENPAW_RETENTION_STEP_LOGS: '90d' }, [])?.horizonMs).toBe(90 * 86_400_000);
    expect(stepLogArchivePolicy({ OPENPAW_RETENTION_STEP_LOGS: 'keep' }, [])).toBeUndefined();
    expect(() => stepLogArchivePolicy({ OPENPAW_RETENTION_STEP_LOGS: 'soon' }, [])).toThrow('OPENPAW_RETENTION_STEP_LOGS');
  });
});
