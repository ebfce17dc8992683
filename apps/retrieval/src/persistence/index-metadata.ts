import type { Pool } from 'pg';

/* Queries of the retrieval schema the domain stores do not cover: the vector space guard and the pHash versions. */

/**
 * Records which embedder built the index (table `vector_space`), and refuses another one while the
 * index holds problems: vectors of two models, or of one model at two sizes, are not comparable, and a
 * silent switch would turn every vector search into noise. An empty index adopts the new embedder.
 */
export async function claimVectorSpace(pool: Pool, model: string, dimension: number): Promise<void> {
  await pool.query(`insert into retrieval.vector_space (id, embedder_model, dimension) values (1, $1, $2) on conflict (id) do nothing`, [model, dimension]);
  const { rows } = await pool.query<{ embedder_model: string; dimension: number }>(`select embedder_model, dimension from retrieval.vector_space where id = 1`);
  const recorded = rows[0];
  if (recorded === undefined) throw new Error('retrieval.vector_space has no row after inserting it');
  if (recorded.embedder_model === model && recorded.dimension === dimension) return;
  const { rows: indexed } = await pool.query<{ any: boolean }>(`select exists (select 1 from retrieval.indexed_problems) as any`);
  if (indexed[0]?.any === true) {
    throw new Error(
      `the retrieval index was built with the embedder ${recorded.embedder_model} (${recorded.dimension} dimensions), not ${model} (${dimension}): ` +
        'set OPENPAW_EMBEDDINGS_MODEL / OPENPAW_EMBEDDINGS_DIMENSIONS back, or rebuild the index in a fresh schema',
    );
  }
  await pool.query(`update retrieval.vector_space set embedder_model = $1, dimension = $2, updated_at = now() where id = 1`, [model, dimension]);
}

/** Every pHash algorithm version the catalogue holds hashes of (one in-memory index each). */
export async function storedPhashVersions(pool: Pool): Promise<string[]> {
  const { rows } = await pool.query<{ phash_version: string }>(
    `select distinct phash_version from retrieval.indexed_problems where phash is not null and phash_version is not null order by phash_version`,
  );
  return rows.map((row) => row.phash_version);
}
