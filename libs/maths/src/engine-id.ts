/** Engine name and version, recorded in a solution's provenance. */
export const MATHS_ENGINE_ID = 'openpaw/maths-engine';

/**
 * The version of the engine's reading of problem text: the canonical form its one total parser gives a
 * text. Bump it whenever the reading of some text changes (a fix in the reader, a new kind of problem
 * read). The maths signature is versioned by it (`maths-sig/v<N>`, apps/ingestion), every indexed
 * problem keeps the version it was read under, and the maths reading sweep (`tools/maths-reindex.ts`)
 * withdraws each stored answer whose text today's reading reads otherwise, so an exact copy is solved
 * afresh instead of being served an answer to another reading (issue 24).
 * 11: "x|x| < 4" is x·|x| < 4 (10 read "(x) < 4").
 */
export const MATHS_READING_VERSION = 11;

/** The engine's version in a solution's provenance: the reading it solved from. */
export const MATHS_ENGINE_VERSION = `maths-v${MATHS_READING_VERSION}`;
