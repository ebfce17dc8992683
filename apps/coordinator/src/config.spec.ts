import { coordinatorSettingsFromEnv } from './config.js';

describe('coordinatorSettingsFromEnv', () => {
  it('reads everything, workflows and streams included, from the one environment it is given', () => {
    const settings = coordinatorSettingsFromEnv({
      OPENPAW_COORDINATOR_MAX_BATCH: '32',
      OPENPAW_WORKFLOW_TIMINGS_JSON: JSON.stringify({ index: { timeoutMs: 250 } }),
      OPENPAW_STREAMS_PROVISION: 'off',
      OPENPAW_RUN_STATE_CHANGED_V1: 'on',
    });
    expect(settings.maxBatch).toBe(32);
    expect(settings.publishRunStateChangedV1).toBe(true);
    expect(settings.workflows.timings.index.timeoutMs).toBe(250);
    expect(settings.streams?.mode).toBe('off');
  });

  it('uses the defaults for an empty environment, whatever the process has', () => {
    const settings = coordinatorSettingsFromEnv({});
    expect(settings.maxBatch).toBe(256);
    expect(settings.publishRunStateChangedV1).toBe(false);
    expect(settings.streams?.mode).toBe('create-missing');
  });

  it('refuses at start a provisioning its own NATS user could not do (only off, with a credentials file)', () => {
    const own = { OPENPAW_NATS_CREDS_FILE: '/var/run/secrets/openpaw/nats/nats.creds' };
    expect(() => coordinatorSettingsFromEnv(own)).toThrow(/^OPENPAW_STREAMS_PROVISION=create-missing \(the default\) cannot run as this service's own NATS user/);
    expect(coordinatorSettingsFromEnv({ ...own, OPENPAW_STREAMS_PROVISION: 'off' }).streams?.mode).toBe('off');
  });

  it('refuses an invalid workflow setting at bootstrap', () => {
    expect(() => coordinatorSettingsFromEnv({ OPENPAW_POLICY_JSON: '{"defaults":{"retry_max":"3"}}' })).toThrow(/retry_max/);
  });
});
