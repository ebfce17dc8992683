import { readStatedConstraints } from '../intent/constraint-phrases.js';
import { conceptPhrases } from '../intent/local-intent-parser.js';

/** What free-text feedback asks for, read by rules: more of, less of, and time or count limits. */
export interface FeedbackWishes {
  readonly include: string[];
  readonly exclude: string[];
  readonly yearFrom: number | null;
  readonly yearTo: number | null;
  readonly maxResults: number | null;
}

const EXCLUDE = /\b(?:exclude|excluding|without|not about|no more|no|not|avoid|fewer|less|drop|remove|skip)\s+([^,.;!?]+)/gi;
const INCLUDE = /\b(?:more (?:on|about)|focus(?:ing)? on|include|including|also|add|especially|particularly|only)\s+([^,.;!?]+)/gi;

/** "more on clinical trials, no surveys, since 2020" → include clinical trials, exclude surveys, from 2020. */
export function readFeedback(text: string | null, currentYear: number): FeedbackWishes {
  if (text === null || text.trim() === '') return { include: [], exclude: [], yearFrom: null, yearTo: null, maxResults: null };
  const stated = readStatedConstraints(text, currentYear);
  let rest = stated.rest;
  const exclude: string[] = [];
  const include: string[] = [];
  for (const match of rest.matchAll(EXCLUDE)) exclude.push(...conceptPhrases(match[1] ?? ''));
  rest = rest.replace(EXCLUDE, ' ');
  for (const match of rest.matchAll(INCLUDE)) include.push(...conceptPhrases(match[1] ?? ''));
  rest = rest.replace(INCLUDE, ' ');
  // Whatever is left that names things ("protein design please") is something to look for too.
  include.push(...conceptPhrases(rest));
  return { include: [...new Set(include)], exclude: [...new Set(exclude)], yearFrom: stated.yearFrom, yearTo: stated.yearTo, maxResults: stated.maxResults };
}
