import type { OcrBox } from '../port.js';
import { connectedComponents, type RgbRaster, resampleRegion } from '../raster.js';
import type { TensorData } from './onnx-worker-pool.js';

/** PaddleOCR's DB post-processing settings (its defaults for PP-OCRv4 det). */
export interface DetectionSettings {
  /** Longest side fed to the detector (rounded to a multiple of 32). */
  readonly maxSide: number;
  /** Pixels whose text probability exceeds this form text regions. */
  readonly pixelThreshold: number;
  /** A region whose mean probability is below this is dropped. */
  readonly boxThreshold: number;
  /** How far a region's shrunk kernel is grown back (DB's unclip ratio). */
  readonly unclipRatio: number;
}

export const DEFAULT_DETECTION: DetectionSettings = { maxSide: 960, pixelThreshold: 0.3, boxThreshold: 0.6, unclipRatio: 1.5 };

const MEAN = [0.485, 0.456, 0.406] as const;
const STD = [0.229, 0.224, 0.225] as const;

export interface DetectionInput extends TensorData {
  /** Detector pixels per image pixel, horizontally and vertically. */
  readonly scaleX: number;
  readonly scaleY: number;
}

/** The detector's input: scaled so its longest side is at most `maxSide`, each side a multiple of 32, ImageNet-normalised, BGR planes (PaddleOCR reads with OpenCV). */
export function detectionInput(image: RgbRaster, settings: DetectionSettings = DEFAULT_DETECTION): DetectionInput {
  const scale = Math.min(1, settings.maxSide / Math.max(image.width, image.height));
  const w = Math.max(32, Math.round((image.width * scale) / 32) * 32);
  const h = Math.max(32, Math.round((image.height * scale) / 32) * 32);
  const data = new Float32Array(3 * w * h);
  const plane = w * h;
  resampleRegion(image, { x0: 0, y0: 0, width: image.width, height: image.height }, w, h, (x, y, r, g, b) => {
    const i = y * w + x;
    data[i] = (b / 255 - MEAN[0]) / STD[0];
    data[plane + i] = (g / 255 - MEAN[1]) / STD[1];
    data[2 * plane + i] = (r / 255 - MEAN[2]) / STD[2];
  });
  return { data, dims: [1, 3, h, w], scaleX: w / image.width, scaleY: h / image.height };
}

/**
 * Text boxes from the detector's probability map: connected regions above the pixel threshold (8-way),
 * kept when their pixels' mean probability clears the box threshold, grown by DB's unclip distance
 * (area × ratio / perimeter), in image pixels. Axis-aligned: the page was levelled upstream.
 */
export function textBoxes(map: TensorData, input: DetectionInput, imageWidth: number, imageHeight: number, settings: DetectionSettings = DEFAULT_DETECTION): OcrBox[] {
  const h = map.dims[2] ?? 0;
  const w = map.dims[3] ?? 0;
  const prob = map.data;
  const { label, components } = connectedComponents(w, h, (i) => prob[i]! > settings.pixelThreshold);
  const boxes: OcrBox[] = [];
  for (const { label: id, x0, y0, x1, y1 } of components) {
    const bw = x1 - x0 + 1;
    const bh = y1 - y0 + 1;
    if (Math.min(bw, bh) < 3) continue;
    // The region's own mean probability: a bounding box's mean is diluted by the empty corners of a
    // line with a raised exponent ("n² − 4n + 3 = 0" was dropped whole; measured on the reading bench).
    let sum = 0;
    let count = 0;
    for (let y = y0; y <= y1; y += 1) {
      for (let x = x0; x <= x1; x += 1) {
        if (label[y * w + x] !== id) continue;
        sum += prob[y * w + x]!;
        count += 1;
      }
    }
    if (sum / count < settings.boxThreshold) continue;
    const grow = (bw * bh * settings.unclipRatio) / (2 * (bw + bh));
    boxes.push({
      x0: clamp(Math.floor((x0 - grow) / input.scaleX), 0, imageWidth),
      y0: clamp(Math.floor((y0 - grow) / input.scaleY), 0, imageHeight),
      x1: clamp(Math.ceil((x1 + 1 + grow) / input.scaleX), 0, imageWidth),
      y1: clamp(Math.ceil((y1 + 1 + grow) / input.scaleY), 0, imageHeight),
    });
  }
  return boxes.filter((b) => b.x1 - b.x0 >= 2 && b.y1 - b.y0 >= 2);
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
