/**
 * Paper dedup benchmark: labelled pairs of records from a documented perturbation generator, run
 * through the research service's `deduplicate` one pair at a time (merged = one paper out).
 *
 * Each base work is a generated title ("<method> for <task> in <domain>", some with a subtitle),
 * authors with diacritics, a year, a venue and a DOI. Duplicates (label: same) are a second record
 * of the same work with one or two perturbations:
 * - abbreviated authors ("José Álvarez" → "J. Álvarez"); diacritics dropped (title and authors);
 * - punctuation and case (hyphens ↔ spaces, colon dropped, trailing period, Title Case);
 * - subtitle dropped; one-character typo;
 * - preprint vs journal (an arXiv id and venue "arXiv", a year earlier, no DOI, against the DOI).
 * Hard negatives (label: different) are other works that look alike:
 * - Part I vs Part II; volume n vs n+1; second vs third edition; "Erratum: <title>" vs the title;
 * - a sibling title with one content word changed (another task or domain), same authors and year;
 * - the same title with a different number ("... 2019" vs "... 2020");
 * - two works with the same generic title but different DOIs.
 * Seeds: dev 1 (used while developing), held-out 2 (run once the rules were fixed); both by default.
 * Each positive pair is also deduplicated across two iterations (b found after a was shown, a in the
 * alias table): `firstIdKeptAcrossIterations` is the share that keeps a's id.
 *
 * Run: npm run build && node dist/bench/paper-dedup/dedup-bench.js [seeds=1,2] [pairsPerKind=40]
 */
import { loadavg } from 'node:os';
import { type Paper, paperIdentityOf } from '@openpaw/contracts';
import { deduplicate, paperIdOf } from '../../apps/research/src/public-api.js';
import { pick, randomInt, seededRandom } from '../ingestion-retrieval/support/random.js';

const METHODS = ['Graph neural networks', 'Contrastive pre-training', 'Sparse attention', 'Bayesian optimisation', 'Diffusion models', 'Gradient boosting', 'Self-supervised learning', 'Variational inference', 'Reinforcement learning', 'Knowledge distillation', 'Federated learning', 'Active learning'];
const TASKS = ['protein structure prediction', 'molecular property prediction', 'traffic forecasting', 'image segmentation', 'speech recognition', 'drug–target interaction', 'anomaly detection', 'machine translation', 'weather nowcasting', 'crop yield estimation', 'fraud detection', 'code generation'];
const DOMAINS = ['low-resource settings', 'clinical records', 'satellite imagery', 'edge devices', 'noisy labels', 'multilingual corpora', 'small datasets', 'streaming data'];
const SUBTITLES = ['a systematic evaluation', 'theory and practice', 'lessons from large-scale deployment', 'a benchmark study', 'towards robust generalisation'];
const GIVEN = ['José', 'Zoë', 'Łukasz', 'Renée', 'Søren', 'Ana', 'Thomas', 'Mei', 'Ingrid', 'Ahmed', 'Chloé', 'Jürgen'];
const FAMILY = ['Álvarez', 'Müller', 'Kowalski', 'Dubois', 'Nørgaard', 'Pereira', 'Kipf', 'Zhang', 'Lindqvist', 'Haddad', 'Lefèvre', 'Schäfer'];
const VENUES = ['Nature Machine Intelligence', 'Journal of Machine Learning Research', 'Bioinformatics', 'IEEE Transactions on Neural Networks', 'NeurIPS', 'ICML'];

type Random = () => number;

interface Work {
  readonly title: string;
  readonly authors: string[];
  readonly year: number;
  readonly venue: string;
  readonly doi: string;
}

function record(w: Partial<Paper> & Pick<Paper, 'title'>, source: Paper['sources'][number], n: number): Paper {
  const p: Paper = { id: '', authors: [], year: null, venue: null, abstract: null, doi: null, arxivId: null, pmid: null, url: null, pdfUrl: null, citationCount: null, sources: [source], sourceIds: [{ source, id: `${source}-${n}` }], ...w };
  return { ...p, id: paperIdOf(p) };
}

function baseWork(random: Random, n: number, withSubtitle = random() < 0.4): Work {
  const main = `${pick(random, METHODS)} for ${pick(random, TASKS)} in ${pick(random, DOMAINS)}`;
  const authors = Array.from({ length: randomInt(random, 1, 4) }, () => `${pick(random, GIVEN)} ${pick(random, FAMILY)}`);
  return { title: withSubtitle ? `${main}: ${pick(random, SUBTITLES)}` : main, authors, year: randomInt(random, 2012, 2025), venue: pick(random, VENUES), doi: `10.${randomInt(random, 1000, 9999)}/bench.${n}.${randomInt(random, 1, 1_000_000)}` };
}

const stripDiacritics = (t: string): string => t.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/ł/g, 'l').replace(/ø/g, 'o');
const abbreviate = (name: string): string => name.replace(/^(\p{L})\p{L}*\s/u, '$1. ');
const titleCase = (t: string): string => t.replace(/\b\p{L}/gu, (c) => c.toUpperCase());
function typo(random: Random, t: string): string {
  const i = randomInt(random, 1, t.length - 2);
  return `${t.slice(0, i)}${t[i + 1]}${t[i]}${t.slice(i + 2)}`;
}

const asPaper = (w: Work, source: Paper['sources'][number], n: number, over: Partial<Paper> = {}): Paper =>
  record({ title: w.title, authors: w.authors.map((name) => ({ name, id: null })), year: w.year, venue: w.venue, doi: w.doi, ...over }, source, n);

type Pair = { readonly kind: string; readonly same: boolean; readonly a: Paper; readonly b: Paper };

const POSITIVES: Record<string, (random: Random, w: Work, n: number) => Paper> = {
  abbreviated_authors: (_r, w, n) => asPaper(w, 'crossref', n, { authors: w.authors.map((name) => ({ name: abbreviate(name), id: null })), doi: null }),
  diacritics: (_r, w, n) => asPaper(w, 'serpapi_scholar', n, { title: stripDiacritics(w.title), authors: w.authors.map((name) => ({ name: stripDiacritics(name), id: null })), doi: null }),
  punctuation_case: (r, w, n) => asPaper(w, 'library', n, { title: `${titleCase(w.title.replace(/-/g, ' ').replace(':', r() < 0.5 ? ' -' : ''))}.`, doi: null }),
  subtitle_dropped: (_r, w, n) => asPaper(w, 'semantic_scholar', n, { title: w.title.split(':')[0]!, doi: null }),
  typo: (r, w, n) => asPaper(w, 'serpapi_scholar', n, { title: typo(r, w.title), doi: null }),
  preprint_vs_journal: (r, w, n) => asPaper(w, 'arxiv', n, { doi: null, arxivId: `${randomInt(r, 1501, 2412)}.${randomInt(r, 10000, 99999)}`, venue: 'arXiv', year: w.year - 1 }),
  abbreviated_and_punctuation: (_r, w, n) => asPaper(w, 'crossref', n, { title: `${w.title.toLowerCase()}.`, authors: w.authors.map((name) => ({ name: abbreviate(stripDiacritics(name)), id: null })), doi: null }),
};

const NEGATIVES: Record<string, (random: Random, n: number) => [Paper, Paper]> = {
  part_i_vs_ii: (r, n) => {
    const w = baseWork(r, n, false);
    return [asPaper({ ...w, title: `${w.title}, Part I` }, 'openalex', n, { doi: null }), asPaper({ ...w, title: `${w.title}, Part II` }, 'crossref', n, { doi: null })];
  },
  volume: (r, n) => {
    const w = baseWork(r, n, false);
    const v = randomInt(r, 1, 8);
    return [asPaper({ ...w, title: `${w.title}, Volume ${v}` }, 'openalex', n, { doi: null }), asPaper({ ...w, title: `${w.title}, Volume ${v + 1}` }, 'library', n, { doi: null })];
  },
  edition: (r, n) => {
    const w = baseWork(r, n, false);
    return [asPaper({ ...w, title: `${w.title} (second edition)` }, 'openalex', n, { doi: null }), asPaper({ ...w, title: `${w.title} (third edition)` }, 'library', n, { doi: null })];
  },
  erratum: (r, n) => {
    const w = baseWork(r, n);
    return [asPaper(w, 'openalex', n, { doi: null }), asPaper({ ...w, title: `Erratum: ${w.title}` }, 'crossref', n, { doi: null })];
  },
  sibling_title: (r, n) => {
    const w = baseWork(r, n, false);
    const [method, rest] = w.title.split(' for ');
    const task = rest!.split(' in ')[0]!;
    const other = pick(r, TASKS.filter((t) => t !== task));
    return [asPaper(w, 'openalex', n, { doi: null }), asPaper({ ...w, title: `${method} for ${other} in ${rest!.split(' in ')[1]}` }, 'library', n, { doi: null })];
  },
  different_number: (r, n) => {
    const w = baseWork(r, n, false);
    return [asPaper({ ...w, title: `${w.title}: the ${w.year} challenge` }, 'openalex', n, { doi: null }), asPaper({ ...w, title: `${w.title}: the ${w.year + 1} challenge` }, 'library', n, { doi: null })];
  },
  same_title_other_doi: (r, n) => {
    const w = baseWork(r, n);
    return [asPaper(w, 'openalex', n), asPaper({ ...w, doi: `${w.doi}x`, authors: [`${pick(r, GIVEN)} ${pick(r, FAMILY)}`] }, 'crossref', n)];
  },
};

export function generatePairs(seed: number, perKind: number): Pair[] {
  const random = seededRandom(seed);
  const pairs: Pair[] = [];
  let n = 0;
  for (const [kind, make] of Object.entries(POSITIVES)) {
    for (let i = 0; i < perKind; i++) {
      // The subtitle perturbation needs a subtitle to drop.
      const w = baseWork(random, ++n, kind === 'subtitle_dropped' ? true : undefined);
      pairs.push({ kind, same: true, a: asPaper(w, 'openalex', n), b: make(random, w, n) });
    }
  }
  for (const [kind, make] of Object.entries(NEGATIVES)) {
    for (let i = 0; i < perKind; i++) {
      const [a, b] = make(random, ++n);
      pairs.push({ kind, same: false, a, b });
    }
  }
  return pairs;
}

/** Precision and recall of one seed's pairs, and how often a duplicate found later keeps the earlier id (the alias table). */
function measure(seed: number, perKind: number): Record<string, unknown> {
  const pairs = generatePairs(seed, perKind);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let idKept = 0;
  const misses = new Map<string, number>();
  for (const pair of pairs) {
    const merged = deduplicate([pair.a, pair.b]).papers.length === 1;
    if (merged && pair.same) tp += 1;
    else if (merged) fp += 1;
    else if (pair.same) fn += 1;
    if (merged !== pair.same) misses.set(pair.kind, (misses.get(pair.kind) ?? 0) + 1);
    // The same pair across two iterations: b found after a was shown keeps a's id when they are one work.
    if (pair.same && deduplicate([pair.b], [paperIdentityOf(pair.a)]).papers[0]!.id === pair.a.id) idKept += 1;
  }
  const positives = pairs.filter((p) => p.same).length;
  const precision = tp / Math.max(1, tp + fp);
  const recall = tp / Math.max(1, tp + fn);
  return {
    seed,
    role: seed === 1 ? 'dev' : 'held-out',
    pairs: pairs.length,
    positives,
    negatives: pairs.length - positives,
    tp,
    fp,
    fn,
    precision: Number(precision.toFixed(4)),
    recall: Number(recall.toFixed(4)),
    firstIdKeptAcrossIterations: Number((idKept / Math.max(1, positives)).toFixed(4)),
    errorsByKind: Object.fromEntries(misses),
  };
}

function main(): void {
  const seeds = (process.argv[2] ?? '1,2').split(',').map(Number);
  const perKind = Number(process.argv[3] ?? 40);
  console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  for (const seed of seeds) console.log(JSON.stringify(measure(seed, perKind)));
}

main();
