/**
 * Spec 03's confidence maths (S6), in percent (0–100). The saga computes them from the evidence it
 * holds in its own data (the source of truth; run memory in KV may have expired).
 *
 * - edge: max over its evidence images of min(confFrom, confTo): an image is as good as its weaker face;
 * - path bottleneck: min over the path's edges;
 * - path cumulative: product over the edges of (edgeConf / 100), a probability in [0, 1].
 */
export function edgeConfidence(images: readonly { readonly confidenceFrom: number; readonly confidenceTo: number }[]): number {
  if (images.length === 0) throw new Error('an edge needs at least one evidence image');
  return Math.max(...images.map((image) => Math.min(image.confidenceFrom, image.confidenceTo)));
}

export function pathBottleneck(edgeConfs: readonly number[]): number {
  if (edgeConfs.length === 0) throw new Error('a path has at least one edge');
  return Math.min(...edgeConfs);
}

export function pathCumulative(edgeConfs: readonly number[]): number {
  if (edgeConfs.length === 0) throw new Error('a path has at least one edge');
  return edgeConfs.reduce((product, conf) => product * (conf / 100), 1);
}
