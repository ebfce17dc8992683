import type { VisualWorld } from './world.js';

/**
 * Ground truth for tests and benches only (never used to answer a search or a recognition): who is
 * photographed clearly with whom, i.e. the edges a correct search can verify at 80 %.
 */
export function clearCoAppearances(world: VisualWorld): Map<number, Set<number>> {
  const graph = new Map<number, Set<number>>(world.people.map((p) => [p.index, new Set<number>()]));
  for (const photo of world.photos) {
    const clear = photo.faces.filter((f) => f.clarity === 'clear' && f.personIndex !== null).map((f) => f.personIndex ?? -1);
    for (const a of clear) for (const b of clear) if (a !== b) graph.get(a)?.add(b);
  }
  return graph;
}

/** Hops of the shortest clear chain between two people, or undefined when there is none. */
export function hopDistance(graph: ReadonlyMap<number, ReadonlySet<number>>, from: number, to: number): number | undefined {
  const seen = new Map<number, number>([[from, 0]]);
  const queue = [from];
  for (let head = 0; head < queue.length; head += 1) {
    const node = queue[head] ?? from;
    const depth = seen.get(node) ?? 0;
    if (node === to) return depth;
    for (const next of graph.get(node) ?? []) {
      if (!seen.has(next)) {
        seen.set(next, depth + 1);
        queue.push(next);
      }
    }
  }
  return undefined;
}

/** Every pair (a < b) whose shortest clear chain has exactly `hops` hops. */
export function pairsAtDistance(world: VisualWorld, hops: number): [number, number][] {
  const graph = clearCoAppearances(world);
  const pairs: [number, number][] = [];
  for (let a = 0; a < world.people.length; a += 1) {
    for (let b = a + 1; b < world.people.length; b += 1) if (hopDistance(graph, a, b) === hops) pairs.push([a, b]);
  }
  return pairs;
}

/** The demo's two cases: the first 3-hop pair, and a main-component person with an island person. */
export function demoPairs(world: VisualWorld): { readonly threeHop: [number, number]; readonly noPath: [number, number] } {
  const threeHop = pairsAtDistance(world, 3)[0];
  if (threeHop === undefined) throw new Error(`world ${world.seed} has no 3-hop chain`);
  return { threeHop, noPath: [0, world.mainSize] };
}
