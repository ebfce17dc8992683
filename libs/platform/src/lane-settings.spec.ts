import { laneSettingsFromEnv } from './lane-settings.js';

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
});
