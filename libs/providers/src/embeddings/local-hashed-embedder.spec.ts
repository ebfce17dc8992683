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

describe('LocalHashedEmbedder, maths variant', () => {
  it('names its own vector space and leaves texts without maths as the plain variant embeds them, but for question words', () => {
    expect(new LocalHashedEmbedder({ variant: 'maths' }).model).toBe('local/hashed-ngrams-maths-384');
    expect(Array.from(embedText('the stock market fell', 384, 'maths'))).toEqual(Array.from(embedText('the stock market fell')));
  });

  it('brings a reworded equation closer than the plain variant does; other numbers still differ (the gate, not the embedding, tells them apart)', () => {
    const original = 'Solve 4x − 9 = 23.';
    const paraphrase = 'What is y when 4y - 9 = 23?';
    const sibling = 'Solve 4x − 9 = 24.';
    const plain = cosineSimilarity(embedText(original), embedText(paraphrase));
    const maths = cosineSimilarity(embedText(original, 384, 'maths'), embedText(paraphrase, 384, 'maths'));
    expect(maths).toBeGreaterThan(plain + 0.1);
    expect(cosineSimilarity(embedText(original, 384, 'maths'), embedText(sibling, 384, 'maths'))).toBeLessThan(0.9);
  });
});
