import { InFlightAborts, RunEndedError } from './in-flight-aborts.js';

/** Work that waits until its signal aborts (as a provider call honouring the signal does), or is released. */
function waitingWork(): { readonly work: (signal: AbortSignal) => Promise<string>; readonly release: (value: string) => void; readonly signals: AbortSignal[] } {
  let release: (value: string) => void = () => undefined;
  const signals: AbortSignal[] = [];
  const work = (signal: AbortSignal): Promise<string> =>
    new Promise<string>((resolve, reject) => {
      signals.push(signal);
      release = resolve;
      signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')), { once: true });
    });
  return { work, release: (value) => release(value), signals };
}

describe('InFlightAborts', () => {
  it('aborts the work in flight for the run that ended, and only that run', async () => {
    const aborts = new InFlightAborts();
    const a = waitingWork();
    const b = waitingWork();
    const first = aborts.track('run-a', undefined, a.work);
    const second = aborts.track('run-b', undefined, b.work);
    expect(aborts.inFlight('run-a')).toBe(1);

    expect(aborts.end('run-a', 'cancelled')).toBe(1);
    await expect(first).rejects.toEqual(new RunEndedError('run-a', 'cancelled'));
    expect(b.signals[0]?.aborted).toBe(false);
    b.release('done');
    await expect(second).resolves.toBe('done');
    expect(aborts.inFlight('run-a')).toBe(0);
  });

  it('gives no result for work that finished without noticing its run ended', async () => {
    const aborts = new InFlightAborts();
    const pending = aborts.track('run-a', undefined, (signal) => {
      aborts.end('run-a', 'runtime_budget_exhausted');
      return Promise.resolve(signal.aborted ? 'a failure reply caused by the abort' : 'not aborted');
    });
    await expect(pending).rejects.toBeInstanceOf(RunEndedError);
  });

  it('does not start work picked up after its run ended, until the end is forgotten', async () => {
    let now = 0;
    const aborts = new InFlightAborts(1_000, () => now);
    aborts.end('run-a', 'cancelled');
    let started = false;
    await expect(
      aborts.track('run-a', undefined, () => {
        started = true;
        return Promise.resolve('x');
      }),
    ).rejects.toEqual(new RunEndedError('run-a', 'cancelled'));
    expect(started).toBe(false);

    now = 2_000;
    await expect(aborts.track('run-a', undefined, () => Promise.resolve('later'))).resolves.toBe('later');
  });

  it('forgets ends oldest first, a run ended again counting from its latest end', () => {
    let now = 0;
    const aborts = new InFlightAborts(100, () => now);
    aborts.end('a', 'first');
    now = 50;
    aborts.end('b', 'cancelled');
    now = 60;
    aborts.end('a', 'step 2 superseded step 1');
    now = 151; // b's end (50) is older than the memory; a's latest (60) is not
    aborts.end('c', 'deadline');
    expect(aborts.remembered).toBe(2);
    expect(aborts.endedFor('a', undefined)).toBe('step 2 superseded step 1');
    expect(aborts.endedFor('b', undefined)).toBeUndefined();
    now = 161;
    aborts.end('d', 'cancelled');
    expect(aborts.remembered).toBe(2);
    expect(aborts.endedFor('a', undefined)).toBeUndefined();
  });

  it('ends only the tagged work an end covers (a research round)', async () => {
    const aborts = new InFlightAborts<number>();
    const round1 = waitingWork();
    const round2 = waitingWork();
    const first = aborts.track('run-a', 1, round1.work);
    const second = aborts.track('run-a', 2, round2.work);
    expect(aborts.end('run-a', 'failed', (round) => round <= 1)).toBe(1);
    await expect(first).rejects.toBeInstanceOf(RunEndedError);
    round2.release('round 2 goes on');
    await expect(second).resolves.toBe('round 2 goes on');
    expect(aborts.endedFor('run-a', 1)).toBe('failed');
    expect(aborts.endedFor('run-a', 2)).toBeUndefined();
  });

  it('passes on an error of the work itself while its run goes on', async () => {
    const aborts = new InFlightAborts();
    await expect(aborts.track('run-a', undefined, () => Promise.reject(new Error('provider down')))).rejects.toThrow('provider down');
  });
});
