import { decodeLine, type RecognitionInput } from './recognition.js';

/** Classes: 0 blank, 1 "a", 2 "b", 3 "c", 4 "d", 5 space (the recogniser's last class). */
const DICTIONARY = ['a', 'b', 'c', 'd'];
const CLASSES = DICTIONARY.length + 2;

/** The recogniser's output for steps given as {class: probability}; what a step leaves out is spread evenly over the rest. */
function output(steps: readonly Readonly<Record<number, number>>[]): { data: Float32Array; dims: number[] } {
  const data = new Float32Array(steps.length * CLASSES);
  steps.forEach((step, t) => {
    const given = Object.values(step).reduce((sum, p) => sum + p, 0);
    const rest = (1 - given) / (CLASSES - Object.keys(step).length);
    for (let k = 0; k < CLASSES; k += 1) data[t * CLASSES + k] = step[k] ?? rest;
  });
  return { data, dims: [1, steps.length, CLASSES] };
}

const WHITE = { width: 40, height: 48, data: new Uint8Array(40 * 48 * 3).fill(255) };
const BOX = { x0: 0, y0: 0, x1: 40, y1: 48 };
const INPUT: RecognitionInput = { data: new Float32Array(0), dims: [1, 3, 48, 40], scale: 1, contentWidth: 40 };

describe('decodeLine: what the reader says it did not list (issue 25)', () => {
  it('gives each character its listed alternatives and the probability of its likeliest unlisted reading', () => {
    const decoded = decodeLine(output([{ 1: 0.9, 2: 0.05, 3: 0.01, 0: 0.03 }, { 0: 0.99 }]), DICTIONARY, INPUT, WHITE, BOX);
    const a = decoded.chars.find((c) => c.text === 'a');
    expect(a?.alternatives?.map((x) => x.text)).toEqual(['b', '']);
    // "c" at 0.01 is under the listing floor (0.02): the likeliest reading left out.
    expect(a?.unlisted).toBeCloseTo(0.01);
  });

  it('gives a near miss (a blank step that nearly read a character) the likeliest reading it leaves out, not its neighbours', () => {
    const decoded = decodeLine(output([{ 1: 0.97 }, { 0: 0.6, 2: 0.3, 1: 0.05, 4: 0.02 }, { 3: 0.97 }]), DICTIONARY, INPUT, WHITE, BOX);
    const miss = decoded.chars.find((c) => c.text === '');
    expect(miss?.alternatives).toEqual([{ text: 'b', confidence: expect.closeTo(0.3, 5) }]);
    // "a" (0.05) is the character before it, smeared over the blank step; "d" at 0.02 is what it leaves out.
    expect(miss?.unlisted).toBeCloseTo(0.02);
  });
});
