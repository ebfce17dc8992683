/**
 * The recogniser's output reduced to what decoding reads from it, in its worker before it crosses to
 * the reader: per step (row of the last axis), every class at or above `floor`, then the `extra` most
 * probable below it, most probable first (ties in class order: what a scan keeping the first maximum
 * finds). PP-OCRv4 scores 6,625 classes per step; a line of 60 steps is 1.6 MB as floats, and decoding
 * reads the top classes, the listed alternatives (≥ 2 %) and the likeliest few left out of them.
 *
 * Encoding (float32, so class indices are exact below 2^24): per step `n, class₁, p₁, …, classₙ, pₙ`.
 *
 * This function is also sent as source to the ONNX worker process (`Function.prototype.toString`), so it
 * uses nothing outside its own body.
 */
export function likeliestClasses(data: Float32Array, rows: number, classes: number, floor: number, extra: number): Float32Array {
  const out: number[] = [];
  for (let t = 0; t < rows; t += 1) {
    const row = t * classes;
    const listed: number[] = [];
    // The `extra` largest below the floor, most probable first (a later equal value goes after).
    const below: number[] = [];
    for (let k = 0; k < classes; k += 1) {
      const p = data[row + k]!;
      if (p >= floor) {
        listed.push(k);
        continue;
      }
      if (below.length === extra && (extra === 0 || p <= data[row + below[extra - 1]!]!)) continue;
      let at = below.length;
      while (at > 0 && data[row + below[at - 1]!]! < p) at -= 1;
      below.splice(at, 0, k);
      if (below.length > extra) below.pop();
    }
    // Stable: equal probabilities keep class order.
    listed.sort((a, b) => data[row + b]! - data[row + a]!);
    out.push(listed.length + below.length);
    for (const k of listed) out.push(k, data[row + k]!);
    for (const k of below) out.push(k, data[row + k]!);
  }
  return Float32Array.from(out);
}

/** One step's kept classes, most probable first. */
export interface StepClasses {
  readonly classes: readonly number[];
  readonly probabilities: readonly number[];
}

/** Reads `likeliestClasses`' encoding back into rows. */
export function stepClasses(encoded: Float32Array, rows: number): StepClasses[] {
  const steps: StepClasses[] = [];
  let at = 0;
  for (let t = 0; t < rows; t += 1) {
    const n = encoded[at] ?? 0;
    const classes: number[] = [];
    const probabilities: number[] = [];
    for (let i = 0; i < n; i += 1) {
      classes.push(encoded[at + 1 + 2 * i]!);
      probabilities.push(encoded[at + 2 + 2 * i]!);
    }
    steps.push({ classes, probabilities });
    at += 1 + 2 * n;
  }
  return steps;
}
