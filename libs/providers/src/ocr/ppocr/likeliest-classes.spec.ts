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
 * A recogniser-like output: each step is sure of one class (often the blank) with a runner-up near-miss,
 * sometimes a listed alternative, and just below the 2 % floor a few classes in random places (often the
 * blank, the space or a neighbour, which a near miss's unlisted reading skips); ties included.
 */
function randomOutput(random: () => number, steps: number, classes: number): Float32Array {
  const data = new Float32Array(steps * classes);
  const pick = (): number => Math.floor(random() * classes);
  for (let t = 0; t < steps; t += 1) {
    const row = t * classes;
    for (let k = 0; k < classes; k += 1) data[row + k] = random() < 0.2 ? 0.001 : random() * 0.004;
    for (const level of [0.019, 0.018, 0.017, 0.017, 0.016, 0.015]) data[row + pick()] = level;
    if (random() < 0.3) data[row + pick()] = 0.03;
    data[row + pick()] = 0.1 + random() * 0.2;
    data[row + (random() < 0.5 ? 0 : pick())] = 0.45 + random() * 0.4;
  }
  return data;
}

const DICTIONARY = ['a', 'b', 'c', 'd', 'e', 'f'];
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
    for (let line = 0; line < 300; line += 1) {
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
