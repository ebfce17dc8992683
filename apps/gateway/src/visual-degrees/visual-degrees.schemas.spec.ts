import { visualDegreesBody, streamEventsOf } from './visual-degrees.schemas.js';

describe('visual degrees API schemas', () => {
  it('normalises names and refuses what spec 03 does not allow, naming the field', () => {
    expect(visualDegreesBody.parse({ from: '  Ada   Stone ', to: 'Bea North', options: { maxHops: 3, strategy: 'meet_in_the_middle' } })).toEqual({
      from: 'Ada Stone',
      to: 'Bea North',
      options: { maxHops: 3, strategy: 'meet_in_the_middle' },
    });
    const paths = (input: unknown) => visualDegreesBody.safeParse(input).error?.issues.map((i) => i.path.join('.'));
    expect(paths({ from: 'A' })).toEqual(['to']);
    expect(paths({ from: ' ', to: 'B' })).toEqual(['from']);
    expect(paths({ from: 'A', to: 'B', options: { maxHops: 7 } })).toEqual(['options.maxHops']);
    expect(paths({ from: 'A', to: 'B', options: { strategy: 'bfs' } })).toEqual(['options.strategy']);
    // A run may not outlive its memory (the run-memory bucket's 30-minute TTL, ADR 0029).
    expect(paths({ from: 'A', to: 'B', options: { maxRuntimeMs: 30 * 60_000 } })).toBeUndefined();
    expect(paths({ from: 'A', to: 'B', options: { maxRuntimeMs: 30 * 60_000 + 1 } })).toEqual(['options.maxRuntimeMs']);
    expect(paths({ from: 'A', to: 'B', depth: 2 })).toEqual(['']);
    // Text PostgreSQL cannot hold is refused at the edge, in every free-text field.
    expect(paths({ from: 'A', to: 'B', sessionId: 'a\u0000b' })).toEqual(['sessionId']);
    expect(paths({ from: 'A\uD800', to: 'B' })).toEqual(['from']);
    // The same person at both ends (however spelled) is refused: a 400 naming `to`.
    expect(paths({ from: 'Beyoncé Knowles', to: ' beyonce   KNOWLES' })).toEqual(['to']);
  });

  it("reads a run view's stream events in order, leaving out one it cannot read", () => {
    const status = (seq: number) => ({ seq, type: 'status', at: '2026-11-23T00:00:00.000Z', data: { message: `m${seq}` } });
    expect(streamEventsOf({ events: [status(2), status(1)] }).map((e) => e.seq)).toEqual([1, 2]);
    expect(streamEventsOf({ events: [status(1), { ...status(2), type: 'debug' }, status(3)] }).map((e) => e.seq)).toEqual([1, 3]);
    expect(streamEventsOf({ events: 'none' })).toEqual([]);
    expect(streamEventsOf({})).toEqual([]);
  });
});
