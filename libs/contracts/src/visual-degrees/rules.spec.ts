import { personNameKey } from '../messages/visual-degrees.js';
import { directQueries, discoveryQueries, edgeConfidence, fallbackOrder, pathBottleneck, pathCumulative, verificationQueries } from './rules.js';

describe("visual degrees rules shared by the saga and the service (spec 03)", () => {
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

  it('ranks by best confidence, then count, then id', () => {
    const c = (celebrityId: string, bestConfWithFrontier: number, count: number) => ({ person: { celebrityId }, count, bestConfWithFrontier });
    expect([c('b', 90, 1), c('c', 93, 1), c('a', 90, 1), c('d', 90, 4)].sort(fallbackOrder).map((x) => x.person.celebrityId)).toEqual(['c', 'd', 'a', 'b']);
  });

  it('has one set of query templates and one name identity', () => {
    expect(directQueries('Ada', 'Bea')).toEqual(['Ada Bea']);
    expect(discoveryQueries('Ada')).toEqual(['Ada with celebrities', 'Ada event']);
    expect(verificationQueries('Ada', 'Xav')).toEqual(['Ada Xav', 'Ada Xav event']);
    expect(personNameKey('  Beyoncé   KNOWLES ')).toBe(personNameKey('beyonce knowles'));
  });
});
