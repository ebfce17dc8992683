import { confidenceMap, edgeConfidence, pathBottleneck, pathCumulative } from './confidence.js';

describe('confidence maths', () => {
  it('edge = max over images of min(confFrom, confTo)', () => {
    expect(edgeConfidence([{ confidenceFrom: 99, confidenceTo: 81 }])).toBe(81);
    expect(
      edgeConfidence([
        { confidenceFrom: 99, confidenceTo: 81 },
        { confidenceFrom: 90, confidenceTo: 95 },
        { confidenceFrom: 100, confidenceTo: 40 },
      ]),
    ).toBe(90);
    expect(() => edgeConfidence([])).toThrow(/at least one/);
  });

  it('path bottleneck = min; cumulative = product of conf/100', () => {
    expect(pathBottleneck([95, 82, 99])).toBe(82);
    expect(pathCumulative([90, 80])).toBeCloseTo(0.72, 12);
    expect(pathCumulative([100])).toBe(1);
    expect(pathCumulative([95, 82, 99])).toBeCloseTo(0.95 * 0.82 * 0.99, 12);
    expect(() => pathBottleneck([])).toThrow();
  });

  it('builds the confidence map of a path', () => {
    expect(confidenceMap([{ fromId: 'a', toId: 'x', edgeConf: 90 }, { fromId: 'x', toId: 'b', edgeConf: 85 }])).toEqual({
      edges: { 'a->x': 90, 'x->b': 85 },
      bottleneck: 85,
      cumulative: expect.closeTo(0.765, 12),
    });
  });
});
