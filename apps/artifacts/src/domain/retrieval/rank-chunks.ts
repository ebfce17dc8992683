import { cosineSimilarity, normaliseText } from '@openpaw/providers';

export interface IndexedChunk {
  readonly chunkId: string;
  readonly sourceId: string;
  readonly ordinal: number;
  readonly text: string;
  readonly embedding: Float32Array;
}

export interface RankedChunk extends IndexedChunk {
  readonly score: number;
  readonly vectorScore: number;
  readonly keywordScore: number;
}

/** Weight of the keyword overlap beside the cosine similarity. */
const KEYWORD_WEIGHT = 0.3;

const STOPWORDS = new Set(
  'a an and are as at be by can create for from generate give how i in is it make me my of on or please quiz quizzes flashcard flashcards summary summarize summarise summarize the this to what which with write about'.split(' '),
);

function terms(text: string): Set<string> {
  return new Set(
    normaliseText(text)
      .split(/\s+/)
      .filter((t) => t.length > 2 && !STOPWORDS.has(t)),
  );
}

/**
 * Hybrid ranking of a notebook's chunks for a request: cosine similarity of the embeddings plus the
 * share of the request's content words the chunk contains. Ties break by source, then position, so
 * the same index and request always give the same order. Returns the top `k`.
 */
export function rankChunks(query: string, queryVector: Float32Array, chunks: readonly IndexedChunk[], k: number): RankedChunk[] {
  const queryTerms = terms(query);
  const ranked = chunks.map((chunk): RankedChunk => {
    const vectorScore = chunk.embedding.length === queryVector.length ? cosineSimilarity(queryVector, chunk.embedding) : 0;
    let keywordScore = 0;
    if (queryTerms.size > 0) {
      const chunkTerms = terms(chunk.text);
      let hits = 0;
      for (const term of queryTerms) if (chunkTerms.has(term)) hits++;
      keywordScore = hits / queryTerms.size;
    }
    return { ...chunk, vectorScore, keywordScore, score: vectorScore + KEYWORD_WEIGHT * keywordScore };
  });
  ranked.sort((a, b) => b.score - a.score || a.sourceId.localeCompare(b.sourceId) || a.ordinal - b.ordinal);
  return ranked.slice(0, k);
}
