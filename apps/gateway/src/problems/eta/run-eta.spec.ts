import { etaSeconds } from './run-eta.js';

describe('etaSeconds', () => {
  it('given recent runs, then their median minus the elapsed time, never below zero', () => {
    expect(etaSeconds({ medianMs: 6000, sampleSize: 3 }, 1500)).toEqual({ seconds: 4.5, sampleSize: 3 });
    expect(etaSeconds({ medianMs: 6000, sampleSize: 3 }, 0)).toEqual({ seconds: 6, sampleSize: 3 });
    expect(etaSeconds({ medianMs: 6000, sampleSize: 3 }, 9000)).toEqual({ seconds: 0, sampleSize: 3 });
    // A clock a little behind the event's time counts as no time elapsed.
    expect(etaSeconds({ medianMs: 6000, sampleSize: 3 }, -200)).toEqual({ seconds: 6, sampleSize: 3 });
  });

  it('given no finished run, then no estimate', () => {
    expect(etaSeconds({ sampleSize: 0 }, 1000)).toEqual({ seconds: null, sampleSize: 0 });
  });
});
