/** Engine name and version, recorded in a solution's provenance. */
export const MATHS_ENGINE_ID = 'openpaw/maths-engine';
export const MATHS_ENGINE_VERSION = 'maths-v1';
