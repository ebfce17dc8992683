import { embedText, LocalHashedEmbedder, normaliseText } from './local-hashed-embedder.js';
import { cosineSimilarity } from './port.js';

describe('LocalHashedEmbedder', () => {
  const embedder = new LocalHashedEmbedder();

  it('scores a paraphrase pair clearly higher than an unrelated pair', async () => {
    const { vectors } = await embedder.embed([
      'How do I reset my password?',
      'Steps for resetting a forgotten password',
      'The stock market fell sharply after the earnings report.',
    ]);
    const [question, paraphrase, unrelated] = vectors as [Float32Array, Float32Array, Float32Array];
    const close = cosineSimilarity(question, paraphrase);
    const far = cosineSimilarity(question, unrelated);
    expect(close).toBeGreaterThan(0.3);
    expect(Math.abs(far)).toBeLessThan(0.15);
    expect(close - far).toBeGreaterThan(0.25);
  });

  it('finds the same problem typed differently', () => {
    const a = embedText('Solve 2x + 3 = 7 for x.');
    const b = embedText('solve  2x+3=7  for X');
    const c = embedText('Find the derivative of sin(x) cos(x).');
    expect(cosineSimilarity(a, b)).toBeGreaterThan(0.9);
    expect(cosineSimilarity(a, c)).toBeLessThan(0.3);
  });

  it('ranks passages for a query the way a reader would', () => {
    const query = embedText('photosynthesis in plant leaves');
    const passages = [
      'The French Revolution began in 1789 with the storming of the Bastille.',
      'Plants carry out photosynthesis in the chloroplasts of their leaves.',
      'Interest rates rose as the central bank fought inflation.',
    ].map((p) => cosineSimilarity(query, embedText(p)));
    expect(passages.indexOf(Math.max(...passages))).toBe(1);
  });

  it('is deterministic, unit length, and names itself as local', async () => {
    const first = await embedder.embed(['héllo wörld', '']);
    const second = await embedder.embed(['hello world']);
    expect(first.model).toBe('local/hashed-ngrams-384');
    expect(first.dimensions).toBe(384);
    expect(first.costUsd).toBe(0);
    expect([...first.vectors[0]!]).toEqual([...second.vectors[0]!]);
    const norm = Math.sqrt(first.vectors[0]!.reduce((s, x) => s + x * x, 0));
    expect(norm).toBeCloseTo(1, 5);
    expect(first.vectors[1]!.every((x) => x === 0)).toBe(true);
    expect(normaliseText('  Ça  va? Très-bien! ')).toBe('ca va tres bien');
  });

  it('supports other sizes', async () => {
    const small = new LocalHashedEmbedder({ dimensions: 64 });
    expect((await small.embed(['x'])).vectors[0]).toHaveLength(64);
    expect(small.model).toBe('local/hashed-ngrams-64');
  });
});
