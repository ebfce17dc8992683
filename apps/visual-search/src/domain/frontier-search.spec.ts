import { type ChainEdge, type FrontierState, nextExpansion, recordExpansion, startFrontiers, type Strategy } from './frontier-search.js';

// A ladder: a - x1 - x2 - b, with side branches that waste expansions.
const graph: Record<string, string[]> = {
  a: ['x1', 'a1', 'a2', 'a3'],
  x1: ['a', 'x2', 'x1a'],
  x2: ['x1', 'b', 'x2a'],
  b: ['x2', 'b1'],
  a1: ['a', 'a1a'],
  a2: ['a'],
  a3: ['a', 'a3a'],
  a1a: ['a1'],
  a3a: ['a3'],
  x1a: ['x1'],
  x2a: ['x2'],
  b1: ['b'],
};

function run(strategy: Strategy, hopLimit = 6): { chain: readonly ChainEdge[] | undefined; expansions: string[] } {
  let state: FrontierState = startFrontiers('a', 'b', strategy, hopLimit);
  const expansions: string[] = [];
  for (let step = 0; step < 50; step += 1) {
    const next = nextExpansion(state);
    if (next === undefined) return { chain: undefined, expansions };
    expansions.push(`${next.side[0]}:${next.node}`);
    const outcome = recordExpansion(state, next, (graph[next.node] ?? []).map((node) => ({ node, edgeConf: 90 })));
    if (outcome.chain !== undefined) return { chain: outcome.chain, expansions };
    state = outcome.state;
  }
  throw new Error('did not finish');
}

describe('frontier search', () => {
  it('unidirectional: breadth-first from A until B is a verified neighbour', () => {
    const { chain, expansions } = run('unidirectional');
    expect(chain?.map((e) => `${e.from}-${e.to}`)).toEqual(['a-x1', 'x1-x2', 'x2-b']);
    expect(expansions).toEqual(['f:a', 'f:x1', 'f:a1', 'f:a2', 'f:a3', 'f:x2']);
  });

  it('bidirectional: expands the smaller frontier and meets in the middle with fewer expansions', () => {
    const { chain, expansions } = run('bidirectional');
    expect(chain?.map((e) => `${e.from}-${e.to}`)).toEqual(['a-x1', 'x1-x2', 'x2-b']);
    expect(expansions[0]).toBe('f:a');
    expect(expansions).toContain('b:b');
    expect(expansions.length).toBeLessThan(run('unidirectional').expansions.length);
  });

  it('respects the hop limit on both strategies', () => {
    expect(run('unidirectional', 2).chain).toBeUndefined();
    expect(run('bidirectional', 2).chain).toBeUndefined();
    expect(run('bidirectional', 3).chain).toHaveLength(3);
  });

  it('refuses to record a node out of turn', () => {
    const state = startFrontiers('a', 'b', 'bidirectional', 6);
    expect(() => recordExpansion(state, { side: 'forward', node: 'x1' }, [])).toThrow(/not the next node/);
  });
});
