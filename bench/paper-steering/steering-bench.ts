/**
 * Paper-search steering benchmark: precision@10 of the next round, on a local library (the research
 * service's PostgreSQL full-text library source), after 3 papers are marked relevant — with the
 * marks as bare ids (as before issue 29: the local builder could not read them) and with the marked
 * papers' title, abstract and keywords (BuildSearchStrategy.markedPapers).
 *
 * The library is generated per seed: five sub-fields of graph neural networks (molecules, traffic,
 * social networks, 3-D vision, knowledge graphs), each with its own vocabulary; `--gnn` papers per
 * sub-field mention graph neural networks in title or abstract with 3–6 words of their field (one in
 * five also borrows a word of another field), some shared GNN words and boilerplate; `--others` per
 * field do not mention graph neural networks. The person asks for "graph neural networks" and wants one
 * sub-field: every field is the target once. Round 1 runs the local pipeline (intent parser, strategy
 * builder, library search, dedup, lexical scorer); the person marks relevant the first 3 papers of
 * the target field in round 1's ranking; round 2 is built from that feedback, searched, deduplicated
 * (with the alias table) and scored. precision@10 = papers of the target field among round 2's first
 * 10 papers not already marked (round 1's figure counts its first 10 papers).
 * Seeds: dev 1 (used while developing), held-out 2.
 *
 * Run: npm run build && node dist/bench/paper-steering/steering-bench.js [--seeds 1,2] [--gnn 40] [--others 20]
 */
import { loadavg } from 'node:os';
import { markedPaperOf, type Paper, paperIdentityOf, type ScoredPaper, userFeedback } from '@openpaw/contracts';
import { createDatabase, startPostgresServer } from '@openpaw/testing';
import { pick, randomInt, seededRandom } from '../ingestion-retrieval/support/random.js';
import {
  deduplicate,
  excludeRejected,
  LexicalRelevanceScorer,
  type LibraryReference,
  LibrarySource,
  LocalIntentParser,
  LocalStrategyBuilder,
  openResearchDatabase,
  PgLibraryStore,
  searchSources,
} from '../../apps/research/src/public-api.js';

const FIELDS: Record<string, { readonly tasks: readonly string[]; readonly words: readonly string[] }> = {
  molecules: {
    tasks: ['molecular property prediction', 'drug binding affinity', 'quantum chemistry', 'protein–ligand docking', 'reaction outcome prediction'],
    words: ['molecular', 'molecules', 'drug', 'chemistry', 'quantum', 'atoms', 'protein', 'binding', 'ligand', 'chemical', 'bonds', 'conformers'],
  },
  traffic: {
    tasks: ['traffic forecasting', 'travel time estimation', 'road speed prediction', 'urban mobility modelling', 'congestion detection'],
    words: ['traffic', 'road', 'forecasting', 'sensors', 'transportation', 'congestion', 'speed', 'urban', 'mobility', 'vehicles', 'highway', 'commute'],
  },
  social: {
    tasks: ['community detection', 'social recommendation', 'influence maximisation', 'fake news detection', 'user churn prediction'],
    words: ['social', 'community', 'users', 'influence', 'friendship', 'recommendation', 'followers', 'platform', 'rumour', 'engagement', 'ties', 'homophily'],
  },
  vision: {
    tasks: ['point cloud segmentation', 'skeleton action recognition', 'scene graph generation', 'mesh reconstruction', 'human pose estimation'],
    words: ['point', 'cloud', 'scene', 'mesh', 'segmentation', 'skeleton', 'action', 'images', 'pose', 'lidar', 'pixels', 'camera'],
  },
  knowledge: {
    tasks: ['knowledge graph completion', 'multi-hop question answering', 'entity alignment', 'relation extraction', 'commonsense reasoning'],
    words: ['knowledge', 'entity', 'relation', 'reasoning', 'question', 'answering', 'triples', 'link', 'ontology', 'facts', 'queries', 'embeddings'],
  },
};
const GNN_NAMES = ['Graph neural networks', 'Graph neural networks with attention', 'Message-passing graph neural networks', 'Scalable graph neural networks', 'Equivariant graph neural networks'];
const GNN_WORDS = ['message passing', 'aggregation', 'node representations', 'over-smoothing', 'expressive power', 'neighbourhood sampling', 'graph convolution'];
const OTHER_METHODS = ['Transformers', 'Gradient boosting', 'Convolutional networks', 'Bayesian models', 'Random forests'];
const BOILERPLATE = ['We propose a novel approach and show strong results.', 'Experiments demonstrate state-of-the-art performance.', 'Our method outperforms existing baselines.', 'We evaluate on public benchmarks.'];

interface Generated {
  readonly references: LibraryReference[];
  /** The field of each reference, by citation key. */
  readonly fieldOf: Map<string, string>;
}

function sample<T>(random: () => number, items: readonly T[], count: number): T[] {
  const pool = [...items];
  const out: T[] = [];
  while (out.length < count && pool.length > 0) out.push(pool.splice(Math.floor(random() * pool.length), 1)[0]!);
  return out;
}

function generateLibrary(seed: number, gnnPerField: number, othersPerField: number): Generated {
  const random = seededRandom(seed);
  const references: LibraryReference[] = [];
  const fieldOf = new Map<string, string>();
  const names = Object.keys(FIELDS);
  let n = 0;
  for (const [field, { tasks, words }] of Object.entries(FIELDS)) {
    for (let i = 0; i < gnnPerField + othersPerField; i++) {
      const gnn = i < gnnPerField;
      const fieldWords = sample(random, words, randomInt(random, 3, 6));
      // One paper in five borrows a word of another field.
      if (random() < 0.2) fieldWords.push(pick(random, FIELDS[pick(random, names.filter((f) => f !== field))]!.words));
      const method = gnn ? pick(random, GNN_NAMES) : pick(random, OTHER_METHODS);
      // Some GNN papers name the method in the abstract only.
      const title = gnn && random() < 0.3 ? `${pick(random, ['A study of', 'Learning for', 'Benchmarking'])} ${pick(random, tasks)}` : `${method} for ${pick(random, tasks)}`;
      const abstract = [
        gnn ? `We apply ${method.toLowerCase()} with ${sample(random, GNN_WORDS, 2).join(' and ')}.` : `We apply ${method.toLowerCase()}.`,
        `The work concerns ${fieldWords.join(', ')}.`,
        pick(random, BOILERPLATE),
      ].join(' ');
      const citationKey = `${field}${++n}`;
      fieldOf.set(citationKey, field);
      references.push({ citationKey, entryType: 'article', title, authors: [`Author ${n}`], year: randomInt(random, 2017, 2025), venue: null, abstract, doi: `10.9999/steer.${seed}.${n}`, arxivId: null, pmid: null, url: null, keywords: [] });
    }
  }
  return { references, fieldOf };
}

const QUERY = 'graph neural networks';
const YEAR = () => 2026;
const clock = { now: () => Date.now() };

async function main(): Promise<void> {
  const arg = (name: string, fallback: string): string => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
  };
  const seeds = arg('seeds', '1,2').split(',').map(Number);
  const gnn = Number(arg('gnn', '40'));
  const others = Number(arg('others', '20'));
  console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const server = await startPostgresServer({ fsync: false });
  const dataSource = await openResearchDatabase({ databaseUrl: await createDatabase(server.adminUrl, 'bench_paper_steering'), poolSize: 2 });
  try {
    const store = new PgLibraryStore(dataSource);
    const intentParser = new LocalIntentParser(YEAR);
    const builder = new LocalStrategyBuilder(YEAR);
    const scorer = new LexicalRelevanceScorer();
    for (const seed of seeds) {
      const userId = `steer-${seed}`;
      const { references, fieldOf } = generateLibrary(seed, gnn, others);
      await store.upsert(userId, references);
      const sources = new Map([['library' as const, new LibrarySource(store, userId)]]);
      const fieldOfPaper = (p: Paper): string | undefined => fieldOf.get(p.sourceIds.find((s) => s.source === 'library')?.id ?? '');
      const { intent } = await intentParser.parse(QUERY);
      const round = async (strategy: Awaited<ReturnType<LocalStrategyBuilder['build']>>['strategy'], known: readonly Paper[]): Promise<ScoredPaper[]> => {
        const found = await searchSources(strategy, sources, { perSourceLimit: 25, deadlineMs: 30_000, clock });
        const { papers, earlierIds } = deduplicate(found.papers, known.map(paperIdentityOf));
        const { kept } = excludeRejected(papers, [], earlierIds);
        return (await scorer.score({ query: QUERY, intent, strategy, papers: kept })).papers;
      };
      const perField: Record<string, { round1: number; before: number; after: number }> = {};
      for (const field of Object.keys(FIELDS)) {
        const first = (await builder.build({ intent, previousStrategies: [], feedback: null, availableSources: ['library'] })).strategy;
        const ranked1 = await round(first, []);
        const marked = ranked1.filter((p) => fieldOfPaper(p) === field).slice(0, 3);
        const feedback = userFeedback.parse({ markedRelevant: marked.map((p) => p.id) });
        const precision = (ranked: readonly ScoredPaper[], exclude: ReadonlySet<string>): number => {
          const top = ranked.filter((p) => !exclude.has(p.id)).slice(0, 10);
          return top.filter((p) => fieldOfPaper(p) === field).length / 10;
        };
        const markedIds = new Set(marked.map((p) => p.id));
        const next = async (withPapers: boolean): Promise<number> => {
          const input = { intent, previousStrategies: [first], feedback, availableSources: ['library' as const], ...(withPapers ? { markedPapers: { relevant: marked.map(markedPaperOf), irrelevant: [] } } : {}) };
          const { strategy } = await builder.build(input);
          return precision(await round(strategy, ranked1), markedIds);
        };
        perField[field] = { round1: precision(ranked1, new Set()), before: await next(false), after: await next(true) };
      }
      const mean = (key: 'round1' | 'before' | 'after'): number => Number((Object.values(perField).reduce((s, f) => s + f[key], 0) / Object.keys(perField).length).toFixed(3));
      console.log(JSON.stringify({ seed, role: seed === 1 ? 'dev' : 'held-out', library: references.length, marked: 3, precisionAt10: { round1: mean('round1'), beforeIdsOnly: mean('before'), afterMarkedPapers: mean('after') }, perField }));
    }
  } finally {
    await dataSource.destroy();
    await server.dispose();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
