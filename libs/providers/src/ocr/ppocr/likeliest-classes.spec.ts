import { likeliestClasses, stepClasses } from './likeliest-classes.js';
import { decodeLine, RECOGNITION_KEEP, type RecognitionInput } from './recognition.js';

/** A seeded generator (mulberry32), so a failure names its case. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A recogniser-like output: each step puts most of its mass on one or two classes and spreads the rest,
 * with values repeated (ties), near the 2 % floor, and many near misses on blank steps.
 */
function randomOutput(random: () => number, steps: number, classes: number): Float32Array {
  const data = new Float32Array(steps * classes);
  const levels = [0.001, 0.005, 0.0199, 0.02, 0.03, 0.1, 0.12];
  for (let t = 0; t < steps; t += 1) {
    for (let k = 0; k < classes; k += 1) data[t * classes + k] = random() < 0.3 ? levels[Math.floor(random() * levels.length)]! : random() * 0.004;
    const top = random() < 0.5 ? 0 : Math.floor(random() * classes);
    data[t * classes + top] = 0.4 + random() * 0.6;
  }
  return data;
}

const DICTIONARY = Array.from({ length: 38 }, (_, i) => String.fromCharCode(0x61 + (i % 26)) + (i >= 26 ? "'" : ''));
const CLASSES = DICTIONARY.length + 2;
const WIDTH = 160;
const INPUT: RecognitionInput = { data: new Float32Array(0), dims: [1, 3, 48, WIDTH], scale: 1, contentWidth: WIDTH };
const PAGE = { width: WIDTH, height: 48, data: new Uint8Array(WIDTH * 48 * 3).fill(255) };
const BOX = { x0: 0, y0: 0, x1: WIDTH, y1: 48 };

describe('likeliestClasses: the recogniser output reduced in its worker (issue 25)', () => {
  it('keeps every class at or above the floor and the likeliest below it, most probable first, ties in class order', () => {
    const data = Float32Array.from([0.01, 0.5, 0.03, 0.03, 0.2, 0.001, 0.01, 0.219]);
    const [step] = stepClasses(likeliestClasses(data, 1, 8, 0.02, 2), 1);
    expect(step?.classes).toEqual([1, 7, 4, 2, 3, 0, 6]);
    expect(step?.probabilities).toEqual([...[0.5, 0.219, 0.2, 0.03, 0.03, 0.01, 0.01].map((p) => Math.fround(p))]);
  });

  it('decodes every line exactly as the full output does (characters, alternatives, unlisted readings, near misses)', () => {
    const random = seeded(25);
    for (let line = 0; line < 200; line += 1) {
      const steps = 20;
      const data = randomOutput(random, steps, CLASSES);
      const reduced = { steps: stepClasses(likeliestClasses(data, steps, CLASSES, RECOGNITION_KEEP.floor, RECOGNITION_KEEP.extra), steps), classes: CLASSES };
      // Floor 0 keeps every class of every step: the full output.
      const full = { steps: stepClasses(likeliestClasses(data, steps, CLASSES, 0, 0), steps), classes: CLASSES };
      expect(full.steps.every((s) => s.classes.length === CLASSES)).toBe(true);
      expect(decodeLine(reduced, DICTIONARY, INPUT, PAGE, BOX)).toEqual(decodeLine(full, DICTIONARY, INPUT, PAGE, BOX));
    }
  });
});
