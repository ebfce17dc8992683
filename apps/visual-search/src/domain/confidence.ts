/**
 * The spec's confidence maths (S6). Confidences are percentages (0–100).
 *
 * - edge: the best evidence image, where an image is only as good as its weaker face:
 *   max over images of min(confFrom, confTo);
 * - path bottleneck: its weakest edge, min over edges;
 * - path cumulative: the product of the edges' confidences as probabilities, product(conf / 100), in [0, 1].
 */
export function edgeConfidence(images: readonly { readonly confidenceFrom: number; readonly confidenceTo: number }[]): number {
  if (images.length === 0) throw new Error('an edge needs at least one evidence image');
  return Math.max(...images.map((i) => Math.min(i.confidenceFrom, i.confidenceTo)));
}

export function pathBottleneck(edgeConfs: readonly number[]): number {
  if (edgeConfs.length === 0) throw new Error('a path has at least one edge');
  return Math.min(...edgeConfs);
}

export function pathCumulative(edgeConfs: readonly number[]): number {
  if (edgeConfs.length === 0) throw new Error('a path has at least one edge');
  return edgeConfs.reduce((product, conf) => product * (conf / 100), 1);
}

/** The spec's `confidenceMap` of a finished path: per edge, bottleneck and cumulative. */
export function confidenceMap(edges: readonly { readonly fromId: string; readonly toId: string; readonly edgeConf: number }[]): {
  readonly edges: Readonly<Record<string, number>>;
  readonly bottleneck: number;
  readonly cumulative: number;
} {
  const confs = edges.map((e) => e.edgeConf);
  return {
    edges: Object.fromEntries(edges.map((e) => [`${e.fromId}->${e.toId}`, e.edgeConf])),
    bottleneck: pathBottleneck(confs),
    cumulative: pathCumulative(confs),
  };
}
