/**
 * Paraphrase retrieval (issue 16): the same maths reworded must find the original's solution, and a
 * problem with other numbers must never be served in its place. Runs the service path minus the
 * messaging: ingestion's signature (text normalisation, maths signature) → the contract's signature →
 * retrieval's catalogue (a real PostgreSQL from local binaries), HNSW vector index persisted in it,
 * the providers' local embedder, and hybrid search at the spec's default threshold (0.85).
 *
 * Indexed: every original of the held-out set (sets/maths-problems.ts), every sibling (same wording,
 * one number changed) and a filler corpus of other generated problems. Queried: every paraphrase, with
 * and without its maths signature (without = the text stages alone, as before issue 16).
 *
 * Run: npm run build && node dist/bench/ingestion-retrieval/paraphrase.js [problems=40] [filler=2000] [ngrams|maths]
 * (the last argument picks the local embedder's variant: `maths` is `local/hashed-ngrams-maths`).
 */
import { LocalHashedEmbedder } from '@openpaw/providers';
import { createDatabase, startPostgresServer } from '@openpaw/testing';
import pg from 'pg';
import { computeProblemSignature, toContractSignature } from '../../apps/ingestion/src/public-api.js';
import {
  documentFromIndexCommand,
  ensureEmbeddedVectorTables,
  ensureProblemCatalogTables,
  hybridSearch,
  indexProblem,
  MultiIndexHashIndex,
  PersistedVectorIndex,
  PgProblemCatalog,
  PgVectorStore,
  ProviderEmbedderAdapter,
  queryFromSignature,
  type RetrievalQuery,
} from '../../apps/retrieval/src/public-api.js';
import { mathsProblemSet } from './sets/maths-problems.js';
import { generateAnyProblem } from './support/problem-corpus.js';
import { seededRandom } from './support/random.js';

const PROBLEMS = Number(process.argv[2] ?? 40);
const FILLER = Number(process.argv[3] ?? 2000);
const VARIANT = process.argv[4] === 'maths' ? 'maths' : 'ngrams';

const uuid = (n: number): string => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const signatureOf = (text: string) => toContractSignature(computeProblemSignature(text));

interface Tally {
  hit: number;
  miss: number;
  wrong: number;
}

async function main(): Promise<void> {
  const server = await startPostgresServer({ fsync: false });
  const pool = new pg.Pool({ connectionString: await createDatabase(server.adminUrl, 'bench_paraphrase'), max: 4 });
  pool.on('error', () => undefined);
  try {
    await ensureProblemCatalogTables(pool);
    await ensureEmbeddedVectorTables(pool);
    const embedder = await ProviderEmbedderAdapter.open(new LocalHashedEmbedder({ variant: VARIANT }));
    const vectors = new PersistedVectorIndex(embedder.dimension, new PgVectorStore(pool));
    const catalog = new PgProblemCatalog(pool);
    const phashIndex = new MultiIndexHashIndex();
    const ports = { catalog, phashIndex, vectors, embedder, phashVersion: 'none' };

    const set = mathsProblemSet(PROBLEMS);
    const owner = new Map<string, string>();
    let n = 0;
    const index = async (text: string, name: string): Promise<string> => {
      n += 1;
      const assetVersionId = uuid(n);
      owner.set(assetVersionId, name);
      await indexProblem(documentFromIndexCommand({ runId: uuid(0), problemId: uuid(1_000_000 + n), assetVersionId, signature: signatureOf(text) }), ports);
      return assetVersionId;
    };
    const originals = new Map<string, string>();
    for (const p of set) {
      originals.set(p.id, await index(p.original, p.id));
      await index(p.sibling, `${p.id}-sibling`);
    }
    const random = seededRandom(99);
    for (let i = 0; i < FILLER; i += 1) await index(generateAnyProblem(random).text, `filler-${i}`);
    console.log(`indexed ${n} problems (${set.length} originals, ${set.length} siblings, ${FILLER} filler) in PostgreSQL + HNSW; embedder ${embedder.model}`);

    const modes = { 'with maths signature': true, 'text stages only (before)': false } as const;
    for (const [mode, withMaths] of Object.entries(modes)) {
      const byStyle = new Map<string, Tally>();
      const stages = new Map<string, number>();
      const total: Tally = { hit: 0, miss: 0, wrong: 0 };
      const wrongs: string[] = [];
      for (const p of set) {
        for (const { style, text } of p.paraphrases) {
          const { maths: _maths, ...rest } = queryFromSignature(signatureOf(text));
          const query: RetrievalQuery = withMaths ? queryFromSignature(signatureOf(text)) : rest;
          const result = await hybridSearch(query, { threshold: 0.85 }, ports);
          const tally = byStyle.get(`${p.kind}/${style}`) ?? { hit: 0, miss: 0, wrong: 0 };
          const verdict = result.outcome === 'miss' ? 'miss' : result.candidate?.assetVersionId === originals.get(p.id) ? 'hit' : 'wrong';
          tally[verdict] += 1;
          total[verdict] += 1;
          byStyle.set(`${p.kind}/${style}`, tally);
          if (result.outcome === 'hit') stages.set(result.stage ?? '?', (stages.get(result.stage ?? '?') ?? 0) + 1);
          if (verdict === 'wrong') wrongs.push(`${text} → ${owner.get(result.candidate?.assetVersionId ?? '') ?? '?'}`);
        }
      }
      const count = total.hit + total.miss + total.wrong;
      console.log(`\n${mode}: ${count} paraphrases, hit ${total.hit} (${(total.hit / count).toFixed(3)}), miss ${total.miss}, wrong ${total.wrong}`);
      console.log(`  hits by stage: ${[...stages].map(([k, v]) => `${k} ${v}`).join(', ')}`);
      for (const [style, t] of byStyle) console.log(`  ${style.padEnd(34)} hit ${t.hit}  miss ${t.miss}  wrong ${t.wrong}`);
      for (const w of wrongs.slice(0, 10)) console.log(`  WRONG: ${w}`);
    }

    // What the embedder alone makes of a paraphrase: its cosine to the original (the vector tier needs 0.85).
    const cosines: number[] = [];
    for (const p of set) {
      const [original] = await embedder.embed([signatureOf(p.original).normalizedText]);
      for (const { text } of p.paraphrases.filter((x) => !x.style.startsWith('hard:'))) {
        const [vector] = await embedder.embed([signatureOf(text).normalizedText]);
        if (original !== undefined && vector !== undefined) cosines.push(original.reduce((sum, v, i) => sum + v * (vector[i] ?? 0), 0));
      }
    }
    cosines.sort((a, b) => a - b);
    const at = (q: number): string => (cosines[Math.min(cosines.length - 1, Math.floor(q * cosines.length))] ?? 0).toFixed(3);
    console.log(`
${embedder.model}: cosine paraphrase↔original p10 ${at(0.1)}, median ${at(0.5)}, p90 ${at(0.9)}, ≥ 0.85: ${cosines.filter((c) => c >= 0.85).length}/${cosines.length}`);

    // Siblings asked as new problems: each must hit its own entry (exact text), never the original.
    let siblingOk = 0;
    for (const p of set) {
      const result = await hybridSearch(queryFromSignature(signatureOf(p.sibling.replace('Solve', 'Find x:').replace('Evaluate', 'Compute'))), { threshold: 0.85 }, ports);
      if (result.outcome === 'miss' || owner.get(result.candidate?.assetVersionId ?? '') === `${p.id}-sibling`) siblingOk += 1;
    }
    console.log(`\nsiblings reworded: ${siblingOk}/${set.length} found their own entry or missed (never the original's)`);
  } finally {
    await pool.end();
    await server.dispose();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
