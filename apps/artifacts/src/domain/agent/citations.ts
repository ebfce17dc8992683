import { normaliseText } from '@openpaw/providers';
import { REQUEST_CHUNK_ID, type SnapshotChunk } from '@openpaw/contracts';

/** Share of an evidence quote's words a chunk must contain to count as its source. */
const MIN_CONTAINMENT = 0.6;

function words(text: string): string[] {
  return normaliseText(text)
    .split(/\s+/)
    .filter((w) => w !== '');
}

/**
 * The chunks an item came from, found from the quote the model gave as its evidence (and failing
 * that, the item's own text): every chunk that contains the quote verbatim (after normalisation),
 * else the chunk containing the largest share of its words, if that share is at least 60%.
 * Grounding by quote works the same for every model; a model's unsupported claim cites nothing,
 * and the validator then rejects the item. A job without sources (only the request as its chunk)
 * cites the request.
 */
export function citeChunks(evidence: string, fallbackText: string, chunks: readonly SnapshotChunk[]): string[] {
  // A job without sources has only its request to go on: every item comes from it.
  if (chunks.length === 1 && chunks[0]?.chunk_id === REQUEST_CHUNK_ID) return [REQUEST_CHUNK_ID];
  for (const text of [evidence, fallbackText]) {
    const quote = normaliseText(text);
    if (quote.length < 8) continue;
    const verbatim = chunks.filter((c) => normaliseText(c.text).includes(quote)).map((c) => c.chunk_id);
    if (verbatim.length > 0) return verbatim;
    const quoteWords = words(text);
    let best: { id: string; share: number } | undefined;
    for (const chunk of chunks) {
      const chunkWords = new Set(words(chunk.text));
      const share = quoteWords.filter((w) => chunkWords.has(w)).length / quoteWords.length;
      if (share >= MIN_CONTAINMENT && (best === undefined || share > best.share)) best = { id: chunk.chunk_id, share };
    }
    if (best !== undefined) return [best.id];
  }
  return [];
}
