import type { Person, VerifiedEdge, VisualDegreesData } from './visual-degrees.model.js';

/**
 * The verified chains of a run: one grown from `from` (path, edges) and, when the search meets in the
 * middle, one grown from `to` (reversePath, reverseEdges; edge i joins reversePath[i] to reversePath[i+1]).
 * The side being expanded is `side`; the other chain's last node is what S3 aims at and S5 bridges to.
 * One-sided (spec 03's MVP), the `to` chain is just `[to]`.
 */
export type Side = VisualDegreesData['side'];

export interface Chain {
  readonly path: readonly Person[];
  readonly edges: readonly VerifiedEdge[];
}

export function chainOf(data: VisualDegreesData, side: Side = data.side): Chain {
  return side === 'from' ? { path: data.path, edges: data.edges } : { path: data.reversePath, edges: data.reverseEdges };
}

export function withChain(data: VisualDegreesData, chain: Chain, side: Side = data.side): VisualDegreesData {
  const ends = chain.path.length === 1 ? (side === 'from' ? { from: chain.path[0] ?? data.from } : { to: chain.path[0] ?? data.to }) : {};
  return side === 'from' ? { ...data, ...ends, path: chain.path, edges: chain.edges } : { ...data, ...ends, reversePath: chain.path, reverseEdges: chain.edges };
}

export const otherSide = (side: Side): Side => (side === 'from' ? 'to' : 'from');

/** The node the current side expands from. */
export function frontierOf(data: VisualDegreesData): Person {
  return chainOf(data).path.at(-1) ?? (data.side === 'from' ? data.from : data.to);
}

/** What the current side aims at: the other chain's last node (`to`, one-sided). */
export function otherEndOf(data: VisualDegreesData): Person {
  return chainOf(data, otherSide(data.side)).path.at(-1) ?? (data.side === 'from' ? data.to : data.from);
}

export function everyone(data: VisualDegreesData): Person[] {
  return [...data.path, ...data.reversePath];
}

export function hopsVerified(data: VisualDegreesData): number {
  return data.edges.length + data.reverseEdges.length;
}

/** The edge read the other way (from and to swapped, with their confidences). */
export function flipEdge(edge: VerifiedEdge): VerifiedEdge {
  return {
    from: edge.to,
    to: edge.from,
    edgeConf: edge.edgeConf,
    evidence: edge.evidence.map((image) => ({ ...image, confidenceFrom: image.confidenceTo, confidenceTo: image.confidenceFrom })),
  };
}

/**
 * The whole chain from `from` to `to` once `bridge` joins the current side's frontier to the other end:
 * the `from` chain, the bridge, then the `to` chain backwards with its edges read forwards.
 */
export function joined(data: VisualDegreesData, bridge: VerifiedEdge): Chain {
  const forwardBridge = data.side === 'from' ? bridge : flipEdge(bridge);
  return {
    path: [...data.path, ...[...data.reversePath].reverse()],
    edges: [...data.edges, forwardBridge, ...[...data.reverseEdges].reverse().map(flipEdge)],
  };
}
