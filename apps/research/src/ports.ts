import type { SearchExpression } from '@openpaw/providers';
import type { LibraryReference } from './library/reference.js';

/** Injection tokens of the research service's ports. */
export const RESEARCH_LLM = Symbol('openpaw.research.llm');
/** The remote scholarly sources (`ScholarlySource[]`, from env); the library is added per user. */
export const RESEARCH_SOURCES = Symbol('openpaw.research.sources');
export const RESEARCH_LIBRARY = Symbol('openpaw.research.library');
/** The `research` schema's kept replies (`KeptReplyStore` of `@openpaw/messaging`, table `command_replies`). */
export const RESEARCH_REPLIES = Symbol('openpaw.research.replies');
export const RESEARCH_SETTINGS = Symbol('openpaw.research.settings');
export const RESEARCH_CLOCK = Symbol('openpaw.research.clock');
/** The claim check's store of paper lists (`PaperSets`, over the shared blob store). */
export const RESEARCH_PAPER_SETS = Symbol('openpaw.research.paperSets');
/** The retention of stored paper lists (`PaperSetRetention`): run ends recorded, folders swept past the retention. */
export const RESEARCH_PAPER_SET_RETENTION = Symbol('openpaw.research.paperSetRetention');
/** The paper-search skills (`PaperSearchSkills`), built from the LLM client. */
export const RESEARCH_SKILLS = Symbol('openpaw.research.skills');

/** A reference found in a library search, with its full-text rank. */
export interface LibraryHit extends LibraryReference {
  readonly referenceId: string;
  readonly rank: number;
}

export interface LibraryQuery {
  /** Each phrase's words must all match (stemmed); any phrase may. Used when there is no `expression`. */
  readonly phrases: readonly string[];
  /** The approved boolean query: AND, OR and NOT over terms (a term's words must all match, stemmed). */
  readonly expression?: SearchExpression;
  readonly yearFrom: number | null;
  readonly yearTo: number | null;
  readonly limit: number;
}

/** The `research` schema's library (table `library_references`). */
export interface LibraryStore {
  /** Adds or updates references (one row per paper id); says how many were new. */
  upsert(userId: string, references: readonly LibraryReference[]): Promise<{ readonly added: number; readonly updated: number }>;
  /** PostgreSQL full-text search over the user's references, best first. */
  search(userId: string, query: LibraryQuery): Promise<{ readonly hits: LibraryHit[]; readonly total: number }>;
  /** True when the user has imported no reference at all (so a search that finds nothing can say why). */
  isEmpty(userId: string): Promise<boolean>;
}
