import type { Paper, PaperKind } from '../messages/paper-search-model.js';

/** Venue names that say a paper appeared at a conference or workshop. */
const CONFERENCE_VENUE = /\b(?:proceedings|conference|symposium|workshop|colloquium|congress)\b/i;

/**
 * What kind of record a paper is, for the exports: the kind a source gave, else read from the venue
 * (none, or arXiv, with an arXiv id: a preprint; a proceedings, conference, symposium or workshop
 * name: a conference paper; any other venue: a journal article; nothing at all: other).
 */
export function recordKindOf(p: Paper): PaperKind {
  if (p.kind !== undefined) return p.kind;
  const venue = publishedVenueOf(p);
  if (venue === null) return p.arxivId !== null ? 'preprint' : 'other';
  return CONFERENCE_VENUE.test(venue) ? 'conference_paper' : 'journal_article';
}

/** The venue a paper was published in; arXiv is where a preprint is posted, not a venue. */
export function publishedVenueOf(p: Paper): string | null {
  return p.venue !== null && !/^arxiv$/i.test(p.venue) ? p.venue : null;
}
