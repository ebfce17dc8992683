import { createHash } from 'node:crypto';
import { EmbeddedVectorIndex } from '../embedded-vector-index.js';
import { hybridSearch, type HybridSearchPorts, type RetrievalQuery } from '../hybrid-search.js';
import { withoutItemLabel } from './maths-stage.js';
import { MultiIndexHashIndex } from '../phash-index.js';
import type { DocumentMaths, ProblemDocument } from '../problem-catalog.js';
import { indexProblem, type IndexingPorts } from '../problem-indexer.js';
import { HashedNgramEmbedder } from '../test-support/hashed-ngram-embedder.js';
import { InMemoryProblemCatalog } from '../test-support/in-memory-problem-catalog.js';

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * A maths signature as ingestion sends it (maths-sig/v3 on: the hash name-free, the unknowns' names beside
 * it); retrieval treats the hash as opaque, so any stable digest of the form will do.
 */
function maths(canonical: string, numbers: string[], confidence = 1, intent = 'solve', unknowns: readonly string[] = ['x']): DocumentMaths {
  return { hash: sha(`${intent}\n${canonical}`), canonical, intent, numbers, confidence, unknowns, version: 'maths-sig/v3' };
}

const LINEAR = maths('(= (+ (* 4 v0) -9) 23)', ['23', '4', '9']);
const LINEAR_24 = maths('(= (+ (* 4 v0) -9) 24)', ['24', '4', '9']);

const doc = (assetVersionId: string, text: string, m?: DocumentMaths): ProblemDocument => ({
  assetVersionId,
  problemId: `problem-of-${assetVersionId}`,
  normalisedText: text,
  textSha256: sha(text),
  ...(m === undefined ? {} : { maths: m }),
});
const query = (text: string, m?: DocumentMaths): RetrievalQuery => ({ normalisedText: text, textSha256: sha(text), ...(m === undefined ? {} : { maths: m }) });

describe('the maths-signature stage', () => {
  const catalog = new InMemoryProblemCatalog();
  const embedder = new HashedNgramEmbedder(256);
  const ports: HybridSearchPorts & IndexingPorts = {
    catalog,
    phashIndex: new MultiIndexHashIndex(),
    vectors: new EmbeddedVectorIndex(256),
    embedder,
    phashVersion: 'v',
  };
  const policy = { threshold: 0.85 };

  beforeAll(async () => {
    await indexProblem(doc('av-linear', 'solve 4x-9=23', LINEAR), ports);
    await indexProblem(doc('av-linear-24', 'solve 4x-9=24. show your working', LINEAR_24), ports);
  });

  it('hits a paraphrase with the same canonical maths at 0.97, with the maths in the why-trace', async () => {
    const result = await hybridSearch(query('what is x when 4x-9=23?', LINEAR), policy, ports);
    expect(result).toMatchObject({ outcome: 'hit', stage: 'maths_signature', candidate: { assetVersionId: 'av-linear' } });
    expect(result.confidence).toBeCloseTo(0.97);
    const accepted = result.trace.find((t) => t.decision === 'accepted');
    expect(accepted?.reason).toContain('same maths (= (+ (* 4 v0) -9) 23) (solve)');
  });

  it('scales the confidence by the weaker reading and refuses one below the bar', async () => {
    const unsure = { ...LINEAR, confidence: 0.8 };
    const result = await hybridSearch(query('what is x when 4x-9=23?', unsure), { threshold: 0.85, mathsThreshold: 0.9 }, ports);
    const entry = result.trace.find((t) => t.stage === 'maths_signature');
    expect(entry).toMatchObject({ decision: 'rejected', candidate: { assetVersionId: 'av-linear' } });
    expect(entry?.score).toBeCloseTo(0.97 * 0.8);
    expect(entry?.reason).toContain('too unsure');
  });

  it('takes the bar from the policy', async () => {
    const unsure = { ...LINEAR, confidence: 0.8 };
    const result = await hybridSearch(query('what is x when 4x-9=23?', unsure), { threshold: 0.85, mathsThreshold: 0.75 }, ports);
    expect(result).toMatchObject({ outcome: 'hit', stage: 'maths_signature' });
  });

  it('never serves a problem whose maths differs, however close the wording', async () => {
    const result = await hybridSearch(query('solve 4x-9=24. show your working please', maths('(= (+ (* 4 v0) -9) 25)', ['25', '4', '9'])), policy, ports);
    expect(result.outcome).toBe('miss');
    const refused = result.trace.find((t) => t.stage === 'vector' && t.candidate?.assetVersionId === 'av-linear-24');
    expect(refused?.reason).toContain("is not the query's");
    expect(result.candidate?.assetVersionId).not.toBe('av-linear-24');
  });

  it('refuses the same maths when the numbers of the prose around it differ', async () => {
    await indexProblem(doc('av-then', 'x+3=7. then find 2x', maths('(= (+ 3 v0) 7)', ['3', '7'])), ports);
    const result = await hybridSearch(query('x+3=7. then find 5x', maths('(= (+ 3 v0) 7)', ['3', '7'])), policy, ports);
    expect(result.outcome).toBe('miss');
    expect(result.trace.find((t) => t.stage === 'maths_signature')).toMatchObject({ decision: 'rejected', reason: expect.stringContaining('numbers around it differ') });
  });

  it('given the same maths in other names ("4k - 9 = 23"), then it is a hit that carries the bijection, and no other tier serves it', async () => {
    const inK = { ...LINEAR, unknowns: ['k'] };
    const result = await hybridSearch(query('solve 4k-9=23', inK), policy, ports);
    expect(result).toMatchObject({ outcome: 'hit', stage: 'maths_signature', candidate: { assetVersionId: 'av-linear' }, relabel: [{ from: 'x', to: 'k' }] });
    expect(result.trace.find((t) => t.decision === 'accepted')?.reason).toContain('under the renaming x → k');
    const unsure = await hybridSearch(query('solve 4k-9=23', { ...inK, confidence: 0.5 }), policy, ports);
    expect(unsure.outcome).toBe('miss');
    expect(unsure.trace).toContainEqual(expect.objectContaining({ stage: 'vector', candidate: expect.objectContaining({ assetVersionId: 'av-linear' }), reason: expect.stringContaining('in other names (x → k)') }));
  });

  it('given the problem indexed both in the asker\'s names and in others, then the asker\'s is served as it is', async () => {
    const system = (unknowns: readonly string[]): DocumentMaths => maths('(= (+ v0 (neg v1)) 2);(= (+ v0 v1) 10)', ['10', '2'], 1, 'solve', unknowns);
    await indexProblem(doc('av-system-yx', 'solve x+y=10, y-x=2', system(['y', 'x'])), ports);
    await indexProblem(doc('av-system-xy', 'solve x+y=10, x-y=2', system(['x', 'y'])), ports);
    const result = await hybridSearch(query('solve x-y=2 and x+y=10', system(['x', 'y'])), policy, ports);
    expect(result).toMatchObject({ outcome: 'hit', candidate: { assetVersionId: 'av-system-xy' } });
    expect(result.relabel).toBeUndefined();
    const swapped = await hybridSearch(query('solve y+x=10, x-y=2', system(['x', 'y'])), policy, ports);
    expect(swapped.relabel).toBeUndefined();
  });

  it('given a problem indexed under an older signature version, then a query never finds it through its hash under that version (a key from another reading is re-keyed or solved again, never served)', async () => {
    const olderHash = sha('maths-sig/v3 of solve 7x+2=30');
    const indexedUnderV3: DocumentMaths = { hash: olderHash, canonical: '(= (+ (* 7 v0) 2) 30)', intent: 'solve', numbers: ['2', '30', '7'], confidence: 1, unknowns: ['x'] };
    await indexProblem(doc('av-v3', 'solve 7x+2=30', indexedUnderV3), ports);
    // An older producer's query still carries the hash under the version before it: it is not looked up.
    const current = { ...maths('(= (+ (* 7 v0) 2) 30)', ['2', '30', '7']), version: 'maths-sig/v4', previousHash: olderHash };
    const result = await hybridSearch(query('what is x if 7x+2=30?', current), policy, ports);
    expect(result.stage).not.toBe('maths_signature');
    expect(result.trace.find((t) => t.stage === 'maths_signature')).toMatchObject({ decision: 'rejected' });
  });

  it('given one hash but no names on the indexed side (a v3 problem with too many unknowns to carry), then it is not served', async () => {
    const nameless: DocumentMaths = { hash: maths('(= (+ (* 9 v0) 1) 55)', []).hash, canonical: '(= (+ (* 9 v0) 1) 55)', intent: 'solve', numbers: ['1', '55', '9'], confidence: 1 };
    await indexProblem(doc('av-nameless', 'solve 9x+1=55', nameless), ports);
    const result = await hybridSearch(query('what is x if 9x+1=55?', maths('(= (+ (* 9 v0) 1) 55)', ['1', '55', '9'])), policy, ports);
    expect(result.trace.find((t) => t.stage === 'maths_signature')).toMatchObject({ decision: 'rejected', reason: expect.stringContaining('without the unknowns') });
  });

  it('given a worded twin (its numbers in words) of a symbolic problem, then the numbers around the maths agree and it hits', async () => {
    await indexProblem(doc('av-2k', 'solve 2k+9=43', maths('(= (+ (* 2 v0) 9) 43)', ['2', '43', '9'], 1, 'solve', ['k'])), ports);
    const worded = query('nine more than twice a number is forty-three; find the number', maths('(= (+ (* 2 v0) 9) 43)', ['2', '43', '9'], 1, 'solve', ['n']));
    expect(await hybridSearch(worded, policy, ports)).toMatchObject({ outcome: 'hit', candidate: { assetVersionId: 'av-2k' }, relabel: [{ from: 'k', to: 'n' }] });
  });

  it('is skipped for a query without maths', async () => {
    const result = await hybridSearch(query('a train travels 240 km in 3 hours'), policy, ports);
    expect(result.trace.find((t) => t.stage === 'maths_signature')).toMatchObject({ decision: 'skipped' });
  });
});

describe('the pHash stage with maths signatures', () => {
  it('refuses a near-duplicate pHash whose maths differs (a sibling printed in the same layout)', async () => {
    const catalog = new InMemoryProblemCatalog();
    const ports: HybridSearchPorts & IndexingPorts = {
      catalog,
      phashIndex: new MultiIndexHashIndex(),
      vectors: new EmbeddedVectorIndex(64),
      embedder: new HashedNgramEmbedder(64),
      phashVersion: 'v1',
    };
    const image = { imageSha256: sha('pixels'), phash: 'a5c30f963c5ae187', phashVersion: 'v1', quality: 100, textDominant: false };
    await indexProblem({ ...doc('av-96', 'solve 6x+38=96', maths('(= (+ (* 6 v0) 38) 96)', ['38', '6', '96'])), ...image }, ports);
    const sibling: RetrievalQuery = {
      ...query('solve 6x+38=99', maths('(= (+ (* 6 v0) 38) 99)', ['38', '6', '99'])),
      imageSha256: sha('other pixels'),
      phash: 'a5c30f963c5ae186',
      phashVersion: 'v1',
      quality: 100,
      textDominant: false,
    };
    const result = await hybridSearch(sibling, { threshold: 0.85 }, ports);
    expect(result.outcome).toBe('miss');
    expect(result.trace).toContainEqual(expect.objectContaining({ stage: 'phash', decision: 'rejected', reason: expect.stringContaining("is not the query's") }));
  });
});

describe('item labels', () => {
  it.each([
    ['problem 12. evaluate 7^10+7^5', 'evaluate 7^10+7^5'],
    ['22. solve 3x+5=68', 'solve 3x+5=68'],
    ['q4) solve x+1=2', 'solve x+1=2'],
    ['solve 3x+5=68', 'solve 3x+5=68'],
    // A copy cropped at the left keeps what is left of the label, sometimes with a stray quote.
    ['roblem 11. "valuate 12 x 11+33', '"valuate 12 x 11+33'],
    ["'roblem 31. valuate 13 x 12+23", 'valuate 13 x 12+23'],
    ['xercise 4: solve x+1=2', 'solve x+1=2'],
    // Not a label: a number that starts the maths, and a word that merely ends like one.
    ['12. 5 apples cost 30', '5 apples cost 30'],
    ['add 12. then 5', 'add 12. then 5'],
  ])('"%s" is compared as "%s"', (text, expected) => {
    expect(withoutItemLabel(text)).toBe(expected);
  });
});
