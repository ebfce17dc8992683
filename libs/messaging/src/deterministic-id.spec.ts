import { z } from 'zod';
import { deterministicId } from './deterministic-id.js';

describe('deterministicId', () => {
  it('gives the same UUID for the same parts, every time', () => {
    expect(deterministicId('cmd-1', 'openpaw.evt.solve.SolutionReady.v1')).toBe(deterministicId('cmd-1', 'openpaw.evt.solve.SolutionReady.v1'));
  });

  it('is a valid RFC 9562 UUID with version 5 and the standard variant', () => {
    const id = deterministicId('run-42');
    expect(z.uuid().safeParse(id).success).toBe(true);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('tells different parts, orders and splits apart', () => {
    const ids = [
      deterministicId('a', 'b'),
      deterministicId('b', 'a'),
      deterministicId('ab'),
      deterministicId('a', 'bc'),
      deterministicId('ab', 'c'),
      deterministicId('a', 'b', ''),
    ];
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('needs at least one part', () => {
    expect(() => deterministicId()).toThrow(/at least one part/);
  });
});
