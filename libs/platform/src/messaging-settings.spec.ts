import { DEFAULT_STREAM_SETTINGS } from '@openpaw/messaging';
import { laneSettingsFromEnv, serviceMessagingSettingsFromEnv } from './messaging-settings.js';

describe('serviceMessagingSettingsFromEnv', () => {
  it('given nothing set, then the local NATS server, streams created when missing, every lane at the default concurrency', () => {
    expect(serviceMessagingSettingsFromEnv({})).toEqual({ natsUrl: ['nats://127.0.0.1:4222'], streams: { mode: 'create-missing', settings: DEFAULT_STREAM_SETTINGS } });
  });

  it('reads the servers, the provisioning, the lanes and their concurrency', () => {
    const settings = serviceMessagingSettingsFromEnv({
      OPENPAW_NATS_URL: 'nats://a:4222, nats://b:4222',
      OPENPAW_STREAMS_PROVISION: 'off',
      OPENPAW_LANES: 'video',
      OPENPAW_LANE_CONCURRENCY: 'video=1',
    });
    expect(settings).toMatchObject({ natsUrl: ['nats://a:4222', 'nats://b:4222'], streams: { mode: 'off' }, lanes: ['video'], laneConcurrency: { video: 1 } });
  });

  it("as its own NATS user (a credentials file), provisions nothing: refuses at start any mode but off, the default too, naming both settings", () => {
    const own = { OPENPAW_NATS_CREDS_FILE: '/var/run/secrets/openpaw/nats/nats.creds' };
    expect(serviceMessagingSettingsFromEnv({ ...own, OPENPAW_STREAMS_PROVISION: 'off' }).streams.mode).toBe('off');
    expect(() => serviceMessagingSettingsFromEnv(own)).toThrow(
      'OPENPAW_STREAMS_PROVISION=create-missing (the default) cannot run as this service\'s own NATS user (OPENPAW_NATS_CREDS_FILE is set)',
    );
    expect(() => serviceMessagingSettingsFromEnv({ ...own, OPENPAW_STREAMS_PROVISION: 'reconcile' })).toThrow(/^OPENPAW_STREAMS_PROVISION=reconcile .*set OPENPAW_STREAMS_PROVISION=off$/);
    expect(() => serviceMessagingSettingsFromEnv({ ...own, OPENPAW_STREAMS_PROVISION: 'create-missing' })).toThrow(/^OPENPAW_STREAMS_PROVISION=create-missing cannot run/);
    // There is no read-only mode: `verify` is refused as an unknown value, naming the modes there are.
    expect(() => serviceMessagingSettingsFromEnv({ ...own, OPENPAW_STREAMS_PROVISION: 'verify' })).toThrow('OPENPAW_STREAMS_PROVISION must be one of create-missing, reconcile, off, got "verify"');
    // Without one (a local NATS, a user/password of the unrestricted platform account) the default stays.
    expect(serviceMessagingSettingsFromEnv({ OPENPAW_NATS_USER: 'dev', OPENPAW_NATS_PASSWORD: 'dev' }).streams.mode).toBe('create-missing');
  });

  it('names the invalid variable', () => {
    expect(() => serviceMessagingSettingsFromEnv({ OPENPAW_STREAMS_PROVISION: 'always' })).toThrow(/OPENPAW_STREAMS_PROVISION/);
    expect(() => serviceMessagingSettingsFromEnv({ OPENPAW_LANE_CONCURRENCY: 'video=fast' })).toThrow(/OPENPAW_LANE_CONCURRENCY/);
  });
});

describe('laneSettingsFromEnv', () => {
  it('consumes every lane with the default concurrency when neither variable is set', () => {
    expect(laneSettingsFromEnv({})).toEqual({});
    expect(laneSettingsFromEnv({ OPENPAW_LANES: ' all ', OPENPAW_LANE_CONCURRENCY: '' })).toEqual({});
  });

  it('reads the lanes this process consumes and the handlers in flight per lane', () => {
    expect(laneSettingsFromEnv({ OPENPAW_LANES: 'critical, priorityvideo', OPENPAW_LANE_CONCURRENCY: 'critical=8, video=1' })).toEqual({
      lanes: ['critical', 'priorityvideo'],
      laneConcurrency: { critical: 8, video: 1 },
    });
  });

  it('names the variable and the pair when a lane concurrency is not <lane>=<positive integer>', () => {
    expect(() => laneSettingsFromEnv({ OPENPAW_LANE_CONCURRENCY: 'video=0' })).toThrow('OPENPAW_LANE_CONCURRENCY: "video=0" is not <lane>=<positive integer>');
    expect(() => laneSettingsFromEnv({ OPENPAW_LANE_CONCURRENCY: '=2' })).toThrow(/OPENPAW_LANE_CONCURRENCY/);
  });

  it('reads how long a command is handled before it gets a receipt, 0 included, and names a value that is not one', () => {
    expect(laneSettingsFromEnv({ OPENPAW_COMMAND_RECEIPT_AFTER_MS: '0' })).toEqual({ commandReceiptAfterMs: 0 });
    expect(laneSettingsFromEnv({ OPENPAW_COMMAND_RECEIPT_AFTER_MS: ' 2500 ' })).toEqual({ commandReceiptAfterMs: 2500 });
    expect(() => laneSettingsFromEnv({ OPENPAW_COMMAND_RECEIPT_AFTER_MS: '-1' })).toThrow('OPENPAW_COMMAND_RECEIPT_AFTER_MS: "-1" is not a whole number of milliseconds (0 or more)');
    expect(() => laneSettingsFromEnv({ OPENPAW_COMMAND_RECEIPT_AFTER_MS: '1s' })).toThrow(/OPENPAW_COMMAND_RECEIPT_AFTER_MS/);
  });
});
