import { edgeConfidence, pathBottleneck, pathCumulative } from './confidence.js';

describe('visual degrees confidence maths (spec 03, S6)', () => {
  it('an edge is the best image, each image as good as its weaker face', () => {
    expect(edgeConfidence([{ confidenceFrom: 99, confidenceTo: 81 }, { confidenceFrom: 90, confidenceTo: 92 }, { confidenceFrom: 85, confidenceTo: 100 }])).toBe(90);
    expect(edgeConfidence([{ confidenceFrom: 80, confidenceTo: 80 }])).toBe(80);
    expect(() => edgeConfidence([])).toThrow('at least one evidence image');
  });

  it('a path is as strong as its weakest edge; its cumulative is the product of the edges as probabilities', () => {
    expect(pathBottleneck([95, 88, 91])).toBe(88);
    expect(pathCumulative([90, 80])).toBeCloseTo(0.72, 10);
    expect(pathCumulative([100])).toBe(1);
    expect(pathCumulative([95, 88, 91])).toBeCloseTo(0.95 * 0.88 * 0.91, 10);
    expect(() => pathBottleneck([])).toThrow();
    expect(() => pathCumulative([])).toThrow();
  });
});
