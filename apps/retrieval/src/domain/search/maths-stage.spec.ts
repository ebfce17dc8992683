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

/** A maths signature as ingestion sends it; retrieval treats the hash as opaque, so any stable digest of the form will do. */
function maths(canonical: string, numbers: string[], confidence = 1, intent = 'solve'): DocumentMaths {
  return { hash: sha(`${intent}\n${canonical}`), canonical, intent, numbers, confidence };
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
