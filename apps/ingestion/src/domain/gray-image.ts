/** A single-channel image, row-major, values 0..255 (floats where a filter produced fractions). */
export interface GrayImage {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array | Float32Array;
}

export function pixelAt(image: GrayImage, x: number, y: number): number {
  return image.data[y * image.width + x] ?? 0;
}

/** Median of the outermost ring of pixels: the background of a scanned or rendered page. */
export function borderMedian(image: GrayImage, ringFraction = 0.02): number {
  const ring = Math.max(1, Math.round(Math.min(image.width, image.height) * ringFraction));
  const histogram = new Uint32Array(256);
  let count = 0;
  for (let y = 0; y < image.height; y += 1) {
    const inBand = y < ring || y >= image.height - ring;
    for (let x = 0; x < image.width; x += 1) {
      if (!inBand && x >= ring && x < image.width - ring) continue;
      const v = Math.max(0, Math.min(255, Math.round(pixelAt(image, x, y))));
      histogram[v] = (histogram[v] ?? 0) + 1;
      count += 1;
    }
  }
  return histogramQuantile(histogram, count, 0.5);
}

/** The value at quantile `q` of `count` samples counted in a 256-bin (or any) histogram. */
export function histogramQuantile(histogram: Uint32Array, count: number, q: number): number {
  const target = q * count;
  let seen = 0;
  for (let v = 0; v < histogram.length; v += 1) {
    seen += histogram[v] ?? 0;
    if (seen >= target) return v;
  }
  return histogram.length - 1;
}

/** Quantile of non-negative values by a 1024-bin histogram over [0, max]; exact enough for thresholds. */
export function quantile(values: Float32Array, q: number): number {
  let max = 0;
  for (const v of values) if (v > max) max = v;
  if (max === 0) return 0;
  const bins = 1024;
  const histogram = new Uint32Array(bins);
  for (const v of values) {
    const bin = Math.min(bins - 1, Math.floor((v / max) * bins));
    histogram[bin] = (histogram[bin] ?? 0) + 1;
  }
  return (histogramQuantile(histogram, values.length, q) / bins) * max;
}

/**
 * Box filter with the given radius along rows then columns, run twice: two box passes make a tent,
 * the cheap low-pass PDQ uses (Jarosz) that irons out JPEG blocking and sensor noise alike.
 */
export function tentBlur(values: Float32Array, width: number, height: number, radius: number): Float32Array {
  if (radius <= 0) return values.slice();
  const a = values.slice();
  const b = new Float32Array(values.length);
  for (let pass = 0; pass < 2; pass += 1) {
    boxRows(a, b, width, height, radius);
    boxCols(b, a, width, height, radius);
  }
  return a;
}

function boxRows(input: Float32Array, output: Float32Array, width: number, height: number, radius: number): void {
  for (let y = 0; y < height; y += 1) {
    const row = y * width;
    let sum = 0;
    let count = 0;
    for (let x = 0; x < Math.min(radius, width); x += 1) {
      sum += input[row + x] ?? 0;
      count += 1;
    }
    for (let x = 0; x < width; x += 1) {
      const add = x + radius;
      if (add < width) {
        sum += input[row + add] ?? 0;
        count += 1;
      }
      const drop = x - radius - 1;
      if (drop >= 0) {
        sum -= input[row + drop] ?? 0;
        count -= 1;
      }
      output[row + x] = sum / count;
    }
  }
}

function boxCols(input: Float32Array, output: Float32Array, width: number, height: number, radius: number): void {
  for (let x = 0; x < width; x += 1) {
    let sum = 0;
    let count = 0;
    for (let y = 0; y < Math.min(radius, height); y += 1) {
      sum += input[y * width + x] ?? 0;
      count += 1;
    }
    for (let y = 0; y < height; y += 1) {
      const add = y + radius;
      if (add < height) {
        sum += input[add * width + x] ?? 0;
        count += 1;
      }
      const drop = y - radius - 1;
      if (drop >= 0) {
        sum -= input[drop * width + x] ?? 0;
        count -= 1;
      }
      output[y * width + x] = sum / count;
    }
  }
}
