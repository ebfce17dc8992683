/**
 * Frontier bookkeeping for the chain search, pure data in and out (the saga keeps it as run data).
 *
 * Unidirectional (the spec's MVP): expand from A until a verified neighbour is B.
 * Bidirectional (beyond the spec, meet in the middle): a frontier grows from A and one from B; each step
 * expands the side whose current layer has fewer nodes waiting, and the search ends when a node
 * discovered from one side is already known to the other. Breadth-first per side, so the chain found is
 * shortest among the edges seen; with layers of size b^(d/2) per side instead of b^d, it needs
 * markedly fewer expansions (and so recognition calls) for the same chain.
 */
export type Strategy = 'unidirectional' | 'bidirectional';
export type Side = 'forward' | 'backward';

export interface SideState {
  /** node -> the node it was reached from (null for the side's root) and that edge's confidence. */
  readonly reached: Readonly<Record<string, { readonly parent: string | null; readonly edgeConf: number; readonly depth: number }>>;
  /** Nodes of the current layer still to expand, in order. */
  readonly layer: readonly string[];
  /** Nodes reached while expanding the current layer: the next layer. */
  readonly next: readonly string[];
}

export interface FrontierState {
  readonly strategy: Strategy;
  readonly hopLimit: number;
  readonly forward: SideState;
  readonly backward: SideState;
}

export interface Expansion {
  readonly side: Side;
  readonly node: string;
}

export interface ChainEdge {
  readonly from: string;
  readonly to: string;
  readonly edgeConf: number;
}

function root(node: string): SideState {
  return { reached: { [node]: { parent: null, edgeConf: 100, depth: 0 } }, layer: [node], next: [] };
}

export function startFrontiers(from: string, to: string, strategy: Strategy, hopLimit: number): FrontierState {
  const backward = root(to);
  return { strategy, hopLimit, forward: root(from), backward: strategy === 'bidirectional' ? backward : { ...backward, layer: [] } };
}

/** The side's layer to pick from: the current one, or the next one promoted when the current is done. */
function pending(side: SideState): readonly string[] {
  return side.layer.length > 0 ? side.layer : side.next;
}

function depthOf(side: SideState, node: string): number {
  return side.reached[node]?.depth ?? 0;
}

/**
 * The next node to expand: from the side with fewer nodes waiting (forward on ties), skipping sides
 * whose next expansion could no longer lead to a chain within the hop limit. Undefined: nothing left.
 */
export function nextExpansion(state: FrontierState): Expansion | undefined {
  const options: Expansion[] = [];
  for (const side of ['forward', 'backward'] as const) {
    const s = state[side];
    const node = pending(s)[0];
    if (node === undefined) continue;
    const other = side === 'forward' ? state.backward : state.forward;
    const otherDepth = Math.min(...Object.values(other.reached).map((r) => r.depth));
    // The chain through a node discovered now has at least depth + 1 + (the other side's shallowest) hops.
    if (depthOf(s, node) + 1 + otherDepth > state.hopLimit) continue;
    options.push({ side, node });
  }
  if (options.length < 2) return options[0];
  return pending(state.backward).length < pending(state.forward).length ? options[1] : options[0];
}

export type ExpansionOutcome = { readonly state: FrontierState; readonly chain?: readonly ChainEdge[] };

/**
 * Records the verified neighbours of an expanded node. When one of them is already reached from the
 * other side, the chain through it is returned (A → … → B, each edge with its confidence).
 */
export function recordExpansion(state: FrontierState, expansion: Expansion, neighbours: readonly { readonly node: string; readonly edgeConf: number }[]): ExpansionOutcome {
  const own = state[expansion.side];
  const other = expansion.side === 'forward' ? state.backward : state.forward;
  const promoted = own.layer.length > 0 ? own : { ...own, layer: own.next, next: [] };
  if (promoted.layer[0] !== expansion.node) throw new Error(`${expansion.node} is not the next node of the ${expansion.side} side`);
  const reached = { ...promoted.reached };
  const next = [...promoted.next];
  const depth = depthOf(promoted, expansion.node) + 1;
  let meeting: string | undefined;
  for (const n of neighbours) {
    if (reached[n.node] === undefined) {
      reached[n.node] = { parent: expansion.node, edgeConf: n.edgeConf, depth };
      next.push(n.node);
    }
    if (meeting === undefined && other.reached[n.node] !== undefined && reached[n.node]?.parent === expansion.node) meeting = n.node;
  }
  const updated: SideState = { reached, layer: promoted.layer.slice(1), next };
  const nextState = expansion.side === 'forward' ? { ...state, forward: updated } : { ...state, backward: updated };
  if (meeting === undefined) return { state: nextState };
  const chain = chainThrough(nextState, meeting);
  return chain.length <= state.hopLimit ? { state: nextState, chain } : { state: nextState };
}

function walk(side: SideState, node: string): ChainEdge[] {
  const edges: ChainEdge[] = [];
  for (let at = node, r = side.reached[at]; r !== undefined && r.parent !== null; at = r.parent, r = side.reached[at]) {
    edges.push({ from: r.parent, to: at, edgeConf: r.edgeConf });
  }
  return edges;
}

/** A → meeting (forward parents, reversed) then meeting → B (backward parents, flipped). */
export function chainThrough(state: FrontierState, meeting: string): ChainEdge[] {
  const head = walk(state.forward, meeting).reverse();
  const tail = walk(state.backward, meeting).map((e) => ({ from: e.to, to: e.from, edgeConf: e.edgeConf }));
  return [...head, ...tail];
}
