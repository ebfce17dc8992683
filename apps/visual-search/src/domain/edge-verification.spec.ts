import { collectCandidates } from './candidates.js';
import { verifyEdge } from './edge-verification.js';
import type { ImageObservation } from './observation.js';

const ada = { celebrityId: 'c-ada', name: 'Ada Lovelace' };
const bob = { celebrityId: 'c-bob', name: 'Bob Marley' };
const cat = { celebrityId: 'c-cat', name: 'Cat Stevens' };
const dan = { celebrityId: 'c-dan', name: 'Dan Brown' };

function image(n: number, ...faces: [typeof ada, number][]): ImageObservation {
  return {
    imageUrl: `https://img.example/${n}.jpg`,
    sourcePageUrl: `https://page.example/${n}`,
    query: 'q',
    phash: n.toString(16).padStart(16, '0'),
    celebrities: faces.map(([p, confidence]) => ({ ...p, confidence })),
  };
}

describe('the edge rule: ≥ 1 image with both endpoints ≥ 80 %', () => {
  it('accepts an edge on one image with both at or above the threshold, strongest evidence first', () => {
    const verdict = verifyEdge([image(1, [ada, 99], [bob, 79.9]), image(2, [ada, 80], [bob, 97]), image(3, [ada, 95], [bob, 92])], { name: 'ada  lovelace' }, { name: 'Bob Marley' }, 80);
    expect(verdict.verified).toBe(true);
    if (!verdict.verified) return;
    expect(verdict.edge.from).toEqual(ada);
    expect(verdict.edge.to).toEqual(bob);
    expect(verdict.edge.edgeConf).toBe(92);
    expect(verdict.edge.evidence.map((e) => e.imageUrl)).toEqual(['https://img.example/3.jpg', 'https://img.example/2.jpg']);
  });

  it('refuses when no single image has both at the threshold, and keeps partial evidence naming everyone each photo shows', () => {
    const verdict = verifyEdge([image(1, [ada, 99], [bob, 79.9]), image(2, [bob, 99], [dan, 41]), image(3, [cat, 99])], ada, bob, 80);
    expect(verdict).toEqual({
      verified: false,
      partial: [
        { imageUrl: 'https://img.example/1.jpg', sourcePageUrl: 'https://page.example/1', query: 'q', confidenceFrom: 99, confidenceTo: 79.9, shows: ['c-ada', 'c-bob'] },
        // Dan, a third person, is named: his takedown finds this photo in a finished run's partial evidence.
        { imageUrl: 'https://img.example/2.jpg', sourcePageUrl: 'https://page.example/2', query: 'q', confidenceFrom: null, confidenceTo: 99, shows: ['c-bob', 'c-dan'] },
      ],
      from: ada,
      to: bob,
    });
  });

  it('names by their id the sides asked for by name that a photo showed at the threshold, the others as asked', () => {
    const verdict = verifyEdge([image(1, [ada, 79.9]), image(2, [bob, 99], [dan, 41])], { name: 'Ada Lovelace' }, { name: 'Bob Marley' }, 80);
    expect(verdict).toMatchObject({ verified: false, from: { name: 'Ada Lovelace' }, to: bob });
    expect(!verdict.verified && verdict.from.celebrityId).toBeUndefined();
  });

  it('names everyone the recogniser saw in each evidence photo, at any confidence, so a takedown of a third person finds it', () => {
    const verdict = verifyEdge([image(1, [ada, 95], [bob, 92], [dan, 41], [dan, 40])], ada, bob, 80);
    expect(verdict.verified && verdict.edge.evidence.map((e) => e.shows)).toEqual([['c-ada', 'c-bob', 'c-dan']]);
    const found = collectCandidates([image(1, [ada, 95], [bob, 92], [dan, 41])], ada, 80, new Set());
    expect(found.candidates.map((c) => c.evidence.map((e) => e.shows))).toEqual([[['c-ada', 'c-bob', 'c-dan']]]);
  });

  it('identifies by celebrity id once known: a namesake with another id is not the person', () => {
    const namesake = { celebrityId: 'c-other-ada', name: 'Ada Lovelace' };
    expect(verifyEdge([image(1, [namesake, 99], [bob, 99])], ada, bob, 80).verified).toBe(false);
    expect(verifyEdge([image(1, [namesake, 99], [bob, 99])], { name: 'Ada Lovelace' }, bob, 80).verified).toBe(true);
  });
});

describe('candidate discovery', () => {
  it('collects co-appearing persons ≥ 80 % with the frontier ≥ 80 %, deduplicated per image, in fallback order', () => {
    const found = collectCandidates(
      [
        image(1, [ada, 99], [bob, 90], [cat, 95]),
        image(2, [ada, 97], [bob, 93]),
        image(3, [ada, 70], [dan, 99]),
        image(4, [ada, 99], [dan, 60]),
        image(5, [bob, 99], [dan, 99]),
      ],
      { name: 'Ada Lovelace' },
      80,
      new Set(),
    );
    expect(found.frontier).toEqual(ada);
    expect(found.candidates.map((c) => [c.person.celebrityId, c.count, c.bestConfWithFrontier])).toEqual([
      ['c-cat', 1, 95],
      ['c-bob', 2, 93],
    ]);
    expect(found.candidates[1]!.evidence.map((e) => e.imageUrl)).toEqual(['https://img.example/1.jpg', 'https://img.example/2.jpg']);
  });

  it('breaks ties by count, then id, and leaves out excluded ids', () => {
    const found = collectCandidates([image(1, [ada, 99], [dan, 90], [cat, 90]), image(2, [ada, 99], [dan, 85]), image(3, [ada, 99], [bob, 90])], ada, 80, new Set(['c-bob']));
    expect(found.candidates.map((c) => c.person.celebrityId)).toEqual(['c-dan', 'c-cat']);
    expect(collectCandidates([image(1, [ada, 99], [cat, 90]), image(2, [ada, 99], [bob, 90])], ada, 80, new Set()).candidates.map((c) => c.person.celebrityId)).toEqual(['c-bob', 'c-cat']);
  });
});
