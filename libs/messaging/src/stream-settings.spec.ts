import { DEFAULT_STREAM_SETTINGS, parseDurationMs, parseSize, streamProvisionFromEnv, streamSettingsFromEnv } from './stream-settings.js';

describe('stream settings from the environment', () => {
  it('defaults to one replica, file storage, 7/7/30 days and no size limits', () => {
    expect(streamSettingsFromEnv({})).toEqual(DEFAULT_STREAM_SETTINGS);
    expect(streamProvisionFromEnv({})).toEqual({ mode: 'create-missing', settings: DEFAULT_STREAM_SETTINGS });
    expect(streamProvisionFromEnv({}, 'reconcile').mode).toBe('reconcile');
  });

  it('reads replicas, storage, the duplicate window and per-stream limits', () => {
    const settings = streamSettingsFromEnv({
      OPENPAW_STREAM_REPLICAS: '3',
      OPENPAW_STREAM_STORAGE: 'memory',
      OPENPAW_STREAM_DUPLICATE_WINDOW: '5m',
      OPENPAW_STREAM_COMMANDS_MAX_BYTES: '10GiB',
      OPENPAW_STREAM_DLQ_MAX_AGE: '90d',
      OPENPAW_STREAM_EVENTS_MAX_MSGS: '1000000',
    });
    expect(settings).toMatchObject({ replicas: 3, storage: 'memory', duplicateWindowMs: 300_000 });
    expect(settings.limits.commands).toEqual({ maxAgeMs: 7 * 86_400_000, maxBytes: 10 * 1024 ** 3, maxMsgs: -1, maxMsgSize: -1 });
    expect(settings.limits.deadLetters.maxAgeMs).toBe(90 * 86_400_000);
    expect(settings.limits.events.maxMsgs).toBe(1_000_000);
    expect(streamProvisionFromEnv({ OPENPAW_STREAMS_PROVISION: 'off' }).mode).toBe('off');
  });

  it('refuses values it cannot read, naming the variable', () => {
    expect(() => streamSettingsFromEnv({ OPENPAW_STREAM_REPLICAS: '0' })).toThrow('OPENPAW_STREAM_REPLICAS');
    expect(() => streamSettingsFromEnv({ OPENPAW_STREAM_STORAGE: 'disk' })).toThrow('OPENPAW_STREAM_STORAGE');
    expect(() => streamSettingsFromEnv({ OPENPAW_STREAM_EVENTS_MAX_AGE: 'a week' })).toThrow('OPENPAW_STREAM_EVENTS_MAX_AGE');
    expect(() => streamProvisionFromEnv({ OPENPAW_STREAMS_PROVISION: 'always' })).toThrow('OPENPAW_STREAMS_PROVISION');
  });

  it('parses durations and sizes', () => {
    expect(parseDurationMs('250ms', 'x')).toBe(250);
    expect(parseDurationMs('90s', 'x')).toBe(90_000);
    expect(parseDurationMs('12h', 'x')).toBe(43_200_000);
    expect(parseDurationMs('1500', 'x')).toBe(1500);
    expect(parseSize('-1', 'x')).toBe(-1);
    expect(parseSize('512MiB', 'x')).toBe(512 * 1024 ** 2);
    expect(parseSize('5GB', 'x')).toBe(5e9);
    expect(() => parseSize('5 parsecs', 'x')).toThrow('x');
  });
});
