/**
 * Near-duplicate benchmark for the image stage (pHash with quality gate and OCR text confirmation).
 *
 * Generated printed problems (4 layouts × 3 fonts × N problems) are ingested through the real
 * ingestion pipeline (normalise → canonical rendition → pHash → OCR → signature) and indexed. Queries:
 * - degraded copies of each original (JPEG 40, half size, 5 % crop, ±20 % brightness, ±2–3° rotation,
 *   noise, and a combined "phone photo"): each should find its original;
 * - different problems printed in the same layout and font (same template with other numbers, and
 *   another template): each should find nothing.
 * Reported: recall and precision of (a) plain pHash < 8 — the trap —, (b) our geometry-normalised
 * pHash < 8 alone, (c) the full image stage; pairwise collisions between different originals; and the
 * distributions the text-agreement bound and the quality threshold were calibrated from.
 *
 * Run: npm run build && node dist/bench/ingestion-retrieval/near-duplicate.js [problemsPerLayoutFont=5] [ocrWorkers=2]
 */
import sharp from 'sharp';
import {
  canonicalRendition,
  dctPhash,
  hammingDistance,
  ingestProblem,
  LOW_QUALITY_THRESHOLD,
  normaliseImage,
  pdqQuality,
  PHASH_VERSION,
  type ProblemSignature,
  createOcrReader,
} from '../../apps/ingestion/src/public-api.js';
import {
  DEFAULT_SEARCH_SETTINGS,
  DEFAULT_TEXT_AGREEMENT,
  findPhashDuplicate,
  InMemoryProblemCatalog,
  MultiIndexHashIndex,
  textAgreement,
} from '../../apps/retrieval/src/public-api.js';
import { FAMILY_NAMES, generateProblem } from './support/problem-corpus.js';
import { seededRandom } from './support/random.js';
import { FONTS, LAYOUTS, renderProblem, TRANSFORMS, transformCopy, type TransformName } from './support/render.js';
import { percentile } from './support/stats.js';

interface Sample {
  readonly key: string;
  readonly layout: string;
  readonly font: string;
  readonly role: 'original' | 'copy' | 'negative';
  readonly originalKey?: string;
  readonly transform?: TransformName;
  readonly negativeKind?: 'same-template' | 'other-template';
  readonly png: Buffer;
  signature?: ProblemSignature;
  plainHash?: bigint;
}

const perCell = Number(process.argv[2] ?? 5);
const workers = Number(process.argv[3] ?? 2);

async function plainPhash(bytes: Buffer): Promise<bigint> {
  const data = await sharp(bytes).flatten({ background: '#ffffff' }).grayscale().resize(32, 32, { fit: 'fill' }).raw().toBuffer();
  return dctPhash(Float32Array.from(data));
}

async function qualityOf(png: Buffer): Promise<number> {
  const rendition = await canonicalRendition(await normaliseImage(png));
  return rendition.contentBox === null ? 0 : pdqQuality(rendition.qualityInput);
}

async function main(): Promise<void> {
  const started = Date.now();
  const random = seededRandom(20260611);
  const samples: Sample[] = [];
  let n = 0;
  for (const layout of LAYOUTS) {
    for (const font of FONTS) {
      for (let k = 0; k < perCell; k += 1) {
        n += 1;
        const family = FAMILY_NAMES[(n * 7) % FAMILY_NAMES.length] ?? 'linear';
        const original = generateProblem(random, family);
        const key = `p${n}`;
        const rendered = await renderProblem({ text: original.text, font, layout, number: n });
        samples.push({ key, layout, font, role: 'original', png: rendered.png });
        for (const transform of TRANSFORMS) {
          samples.push({ key: `${key}:${transform}`, layout, font, role: 'copy', originalKey: key, transform, png: await transformCopy(rendered.png, transform, n) });
        }
        // Same template, other numbers, same number on the page, same layout and font: the hardest negative.
        const sibling = generateProblem(random, family);
        samples.push({
          key: `${key}:sibling`,
          layout,
          font,
          role: 'negative',
          negativeKind: 'same-template',
          png: (await renderProblem({ text: sibling.text, font, layout, number: n })).png,
        });
        const otherFamily = FAMILY_NAMES[(n * 7 + 3) % FAMILY_NAMES.length] ?? 'circle';
        const other = generateProblem(random, otherFamily);
        samples.push({
          key: `${key}:other`,
          layout,
          font,
          role: 'negative',
          negativeKind: 'other-template',
          png: (await renderProblem({ text: other.text, font, layout, number: n })).png,
        });
      }
    }
  }
  const countOf = (role: Sample['role']): number => samples.filter((s) => s.role === role).length;
  console.log(`corpus: ${countOf('original')} originals, ${countOf('copy')} degraded copies, ${countOf('negative')} same-layout negatives`);
  // An image the reader refuses is an honest outcome, not a bench failure: it is listed and left out of
  // the figures below, with the copies of a refused original (they have nothing to match).
  const refused: string[] = [];

  const reader = createOcrReader({ reader: 'pp-ocr', workers, timeoutMs: 30_000 });
  const ingestStarted = Date.now();
  try {
    const queue = [...samples];
    const ports = { reader, fetch: () => Promise.reject(new Error('no URLs in this benchmark')) };
    await Promise.all(
      Array.from({ length: workers }, async () => {
        for (let sample = queue.shift(); sample !== undefined; sample = queue.shift()) {
          const outcome = await ingestProblem({ kind: 'image', bytes: sample.png }, ports);
          if (outcome.status !== 'normalised') {
            refused.push(`${sample.key}: ${outcome.reason}`);
            continue;
          }
          sample.signature = outcome.signature;
          sample.plainHash = await plainPhash(sample.png);
        }
      }),
    );
  } finally {
    await reader.close();
  }
  const ingestMs = (Date.now() - ingestStarted) / samples.length;
  if (refused.length > 0) console.log(`refused at ingestion, left out of the figures: ${refused.length}\n  ${refused.join('\n  ')}`);
  const refusedOriginals = new Set(samples.filter((s) => s.role === 'original' && s.signature === undefined).map((s) => s.key));
  const evaluated = (s: Sample): boolean => s.signature !== undefined && (s.originalKey === undefined || !refusedOriginals.has(s.originalKey));
  const originals = samples.filter((s) => s.role === 'original' && evaluated(s));
  const copies = samples.filter((s) => s.role === 'copy' && evaluated(s));
  const negatives = samples.filter((s) => s.role === 'negative' && evaluated(s));
  console.log(`ingested ${samples.length} images (normalise, rendition, pHash, OCR, signature): ${ingestMs.toFixed(0)} ms/image wall with ${workers} OCR workers`);

  const catalog = new InMemoryProblemCatalog();
  const index = new MultiIndexHashIndex();
  const keyOfDoc = new Map<number, string>();
  for (const original of originals) {
    const sig = original.signature;
    if (sig === undefined) throw new Error('not ingested');
    const { problem } = await catalog.upsert({
      assetVersionId: original.key,
      normalisedText: sig.normalisedText,
      textSha256: sig.textSha256,
      ...(sig.imageSha256 === undefined ? {} : { imageSha256: sig.imageSha256 }),
      ...(sig.phash === undefined ? {} : { phash: sig.phash }),
      phashVersion: sig.phashVersion,
      ...(sig.quality === undefined ? {} : { quality: sig.quality }),
      textDominant: sig.textDominant ?? false,
    });
    keyOfDoc.set(problem.docId, original.key);
    if (sig.phash !== undefined) index.insert(problem.docId, BigInt(`0x${sig.phash}`));
  }

  type Method = 'plain pHash < 8' | 'normalised pHash < 8' | 'image stage (ours)';
  const methods: Method[] = ['plain pHash < 8', 'normalised pHash < 8', 'image stage (ours)'];
  const nearestOriginal = (distance: (o: Sample) => number, eligible: (o: Sample) => boolean = () => true): string | undefined => {
    let best: { key: string; d: number } | undefined;
    for (const o of originals) {
      if (!eligible(o)) continue;
      const d = distance(o);
      if (d < 8 && (best === undefined || d < best.d)) best = { key: o.key, d };
    }
    return best?.key;
  };
  const answer = async (query: Sample, method: Method): Promise<string | undefined> => {
    const sig = query.signature;
    if (sig === undefined || query.plainHash === undefined) throw new Error('not ingested');
    switch (method) {
      case 'plain pHash < 8':
        return nearestOriginal((o) => hammingDistance(o.plainHash ?? 0n, query.plainHash ?? 0n));
      case 'normalised pHash < 8':
        return nearestOriginal((o) => hammingDistance(BigInt(`0x${o.signature?.phash ?? '0'}`), BigInt(`0x${sig.phash ?? '0'}`)));
      case 'image stage (ours)': {
        const found = await findPhashDuplicate(
          {
            normalisedText: sig.normalisedText,
            textSha256: sig.textSha256,
            ...(sig.imageSha256 === undefined ? {} : { imageSha256: sig.imageSha256 }),
            ...(sig.phash === undefined ? {} : { phash: sig.phash }),
            phashVersion: sig.phashVersion,
            ...(sig.quality === undefined ? {} : { quality: sig.quality }),
            textDominant: sig.textDominant ?? false,
          },
          { catalog, phashIndex: index },
          { ...DEFAULT_SEARCH_SETTINGS, phashVersion: PHASH_VERSION },
        );
        return found === undefined ? undefined : keyOfDoc.get(found.problem.docId);
      }
    }
  };

  console.log('\nrecall per transform (copy → its original), and false hits (copy → another original)');
  console.log(`${'transform'.padEnd(12)}${methods.map((m) => m.padStart(26)).join('')}`);
  const totals = new Map<Method, { tp: number; fp: number; fn: number }>(methods.map((m) => [m, { tp: 0, fp: 0, fn: 0 }]));
  for (const transform of TRANSFORMS) {
    const row: string[] = [];
    for (const method of methods) {
      let tp = 0;
      let fp = 0;
      for (const copy of copies.filter((c) => c.transform === transform)) {
        const got = await answer(copy, method);
        if (got === copy.originalKey) tp += 1;
        else if (got !== undefined) fp += 1;
      }
      const count = copies.filter((c) => c.transform === transform).length;
      const total = totals.get(method);
      if (total !== undefined) {
        total.tp += tp;
        total.fp += fp;
        total.fn += count - tp - fp;
      }
      row.push(`${tp}/${count}${fp > 0 ? ` (+${fp} wrong)` : ''}`.padStart(26));
    }
    console.log(`${transform.padEnd(12)}${row.join('')}`);
  }

  console.log('\nfalse hits on different problems in the same layout and font (query is not indexed)');
  for (const method of methods) {
    let sameTemplate = 0;
    let otherTemplate = 0;
    for (const negative of negatives) {
      if ((await answer(negative, method)) === undefined) continue;
      if (negative.negativeKind === 'same-template') sameTemplate += 1;
      else otherTemplate += 1;
    }
    const total = totals.get(method);
    if (total !== undefined) total.fp += sameTemplate + otherTemplate;
    console.log(`${method.padEnd(24)} same template other numbers: ${sameTemplate}/${negatives.length / 2}   other template: ${otherTemplate}/${negatives.length / 2}`);
  }

  console.log('\nsummary over all copies and negatives');
  for (const method of methods) {
    const t = totals.get(method) ?? { tp: 0, fp: 0, fn: 0 };
    const recall = t.tp / copies.length;
    const precision = t.tp + t.fp === 0 ? 1 : t.tp / (t.tp + t.fp);
    console.log(`${method.padEnd(24)} recall ${recall.toFixed(4)}  precision ${precision.toFixed(4)}  (TP ${t.tp}, FP ${t.fp}, FN ${t.fn})`);
  }

  let plainPairs = 0;
  let canonPairs = 0;
  let pairs = 0;
  let minPlain = 64;
  let minCanon = 64;
  for (let i = 0; i < originals.length; i += 1) {
    for (let j = i + 1; j < originals.length; j += 1) {
      const a = originals[i];
      const b = originals[j];
      if (a === undefined || b === undefined) continue;
      pairs += 1;
      const dp = hammingDistance(a.plainHash ?? 0n, b.plainHash ?? 0n);
      const dc = hammingDistance(BigInt(`0x${a.signature?.phash ?? '0'}`), BigInt(`0x${b.signature?.phash ?? '0'}`));
      if (dp < 8) plainPairs += 1;
      if (dc < 8) canonPairs += 1;
      minPlain = Math.min(minPlain, dp);
      minCanon = Math.min(minCanon, dc);
    }
  }
  console.log(`\npairs of different originals under 8 bits: plain ${plainPairs}/${pairs} (min ${minPlain}), normalised ${canonPairs}/${pairs} (min ${minCanon})`);

  // Calibration data for the text-agreement bound.
  const trueSims: number[] = [];
  let trueNumberFailures = 0;
  for (const copy of copies) {
    const original = originals.find((o) => o.key === copy.originalKey);
    const agreement = textAgreement(copy.signature?.normalisedText ?? '', original?.signature?.normalisedText ?? '');
    trueSims.push(agreement.similarity);
    if (!agreement.numbersConsistent) trueNumberFailures += 1;
  }
  const falseSims: number[] = [];
  let falseAgreements = 0;
  for (const query of [...negatives, ...originals]) {
    for (const o of originals) {
      if (o === query || o.layout !== query.layout) continue;
      const agreement = textAgreement(query.signature?.normalisedText ?? '', o.signature?.normalisedText ?? '');
      falseSims.push(agreement.similarity);
      if (agreement.agree) falseAgreements += 1;
    }
  }
  trueSims.sort((a, b) => a - b);
  falseSims.sort((a, b) => a - b);
  console.log(
    `\ntext agreement calibration (bound: similarity ≥ ${DEFAULT_TEXT_AGREEMENT.minSimilarity}, ≤ ${DEFAULT_TEXT_AGREEMENT.maxDroppedNumbers} single-digit numbers dropped, no substituted number)`,
  );
  console.log(
    `  same problem (copy vs original OCR), n=${trueSims.length}: similarity min ${trueSims[0]?.toFixed(3)}  p1 ${percentile(trueSims, 1).toFixed(3)}  p5 ${percentile(trueSims, 5).toFixed(3)}  median ${percentile(trueSims, 50).toFixed(3)}; numbers inconsistent ${trueNumberFailures}`,
  );
  console.log(
    `  different problems, same layout, n=${falseSims.length}: similarity median ${percentile(falseSims, 50).toFixed(3)}  p99 ${percentile(falseSims, 99).toFixed(3)}  max ${falseSims[falseSims.length - 1]?.toFixed(3)}; pairs that pass the full check ${falseAgreements}`,
  );

  const white = await sharp({ create: { width: 800, height: 400, channels: 3, background: '#ffffff' } }).png().toBuffer();
  const grey = await sharp({ create: { width: 800, height: 400, channels: 3, background: '#dddddd' } }).jpeg({ quality: 30 }).toBuffer();
  const gradient = await sharp(
    Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="800" height="400"><defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/><stop offset="1" stop-color="#888"/></linearGradient></defs><rect width="800" height="400" fill="url(#g)"/></svg>'),
  )
    .png()
    .toBuffer();
  const qualities = samples.map((s) => s.signature?.quality ?? 0).sort((a, b) => a - b);
  console.log(
    `\nquality (threshold ${LOW_QUALITY_THRESHOLD}): problem images min ${qualities[0]} p1 ${percentile(qualities, 1)}; blank ${await qualityOf(white)}, uniform grey JPEG ${await qualityOf(grey)}, smooth gradient ${await qualityOf(gradient)}`,
  );
  console.log(`\ntotal ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
