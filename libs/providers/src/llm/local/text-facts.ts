import { createHash } from 'node:crypto';
import { type ContentTerm, contentTerms } from './content-terms.js';

/**
 * Facts the local model can build answers from: the content sentences of a prompt (instructions
 * and schema text dropped), its content terms (noun phrases, names, numbers with units, found by a
 * part-of-speech tagger: `contentTerms`), and per sentence a cloze fact (the sentence's best term as
 * the answer, terms of the same kind as distractors).
 */
export interface Fact {
  readonly sentence: string;
  /** The key term the fact is about. */
  readonly answer: string;
  /** The sentence with the answer blanked out. */
  readonly cloze: string;
}

/** Sentences that address the model rather than carry content. */
const INSTRUCTION = /^(please\s+)?(generate|create|write|return|produce|make|respond|output|use|format|include|give|list|provide|answer|summari[sz]e|build|based on|you are|you will|your task|do not|don't|ensure|reply|read|consider|given the)\b/i;

export class TextFacts {
  readonly sentences: readonly string[];
  /** The text the facts were taken from (for counts such as "5 questions" and enum mentions). */
  readonly sourceText: string;
  #ranked: readonly ContentTerm[] | undefined;
  #terms: readonly string[] | undefined;

  constructor(text: string) {
    this.sourceText = text;
    this.sentences = contentSentences(text);
  }

  /** Content terms, best first (tagged on first use: a caller that only asks `isEmpty` never runs the tagger). */
  get terms(): readonly string[] {
    this.#terms ??= this.ranked.map((term) => term.text);
    return this.#terms;
  }

  private get ranked(): readonly ContentTerm[] {
    this.#ranked ??= contentTerms(this.sentences.join('\n'));
    return this.#ranked;
  }

  get isEmpty(): boolean {
    return this.sentences.length === 0;
  }

  /**
   * The i-th fact, cycling through the sentences. Its answer is the sentence's best key term not in
   * `avoid` (answers already used), so consecutive questions ask about different terms.
   */
  fact(index: number, avoid: ReadonlySet<string> = new Set()): Fact | undefined {
    if (this.sentences.length === 0) return undefined;
    const sentence = this.sentences[index % this.sentences.length]!;
    const answer = this.bestTermIn(sentence, avoid) ?? this.bestTermIn(sentence, new Set()) ?? lastWord(sentence);
    const cloze = sentence.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(answer)}(?![\\p{L}\\p{N}])`, 'giu'), '_____');
    return { sentence, answer, cloze };
  }

  /** `count` options: the answer plus distractors (terms absent from the sentence, of the answer's kind first), at a stable position. */
  options(fact: Fact, count: number): { options: string[]; correctIndex: number } {
    const n = Math.max(1, count);
    const distractors: string[] = [];
    const taken = new Set([fact.answer.toLowerCase()]);
    const consider = (term: string, requireAbsent: boolean): void => {
      const lower = term.toLowerCase();
      if (distractors.length >= n - 1 || taken.has(lower)) return;
      if (requireAbsent && contains(fact.sentence, term)) return;
      taken.add(lower);
      distractors.push(term);
    };
    const kind = this.ranked.find((term) => term.text.toLowerCase() === fact.answer.toLowerCase())?.kind;
    for (const term of this.ranked) if (term.kind === kind) consider(term.text, true);
    for (const term of this.terms) consider(term, true);
    for (const term of this.terms) consider(term, false);
    while (distractors.length < n - 1) distractors.push(distractors.length === 0 ? 'none of the above' : `none of the above (${distractors.length + 1})`);
    const correctIndex = stableHash(fact.sentence) % n;
    const options = [...distractors];
    options.splice(correctIndex, 0, fact.answer);
    return { options, correctIndex };
  }

  /** A short title from the top key terms. */
  title(maxTerms = 3): string {
    const top = this.terms.slice(0, maxTerms).map(capitalise);
    if (top.length === 0) return 'Untitled (no source text)';
    return top.length === 1 ? top[0]! : `${top.slice(0, -1).join(', ')} and ${top.at(-1)!}`;
  }

  /** The `max` sentences richest in key terms, in their original order. */
  summary(max = 3): string {
    const scored = this.sentences.map((sentence, index) => ({ sentence, index, score: this.sentenceScore(sentence) }));
    const chosen = scored.sort((a, b) => b.score - a.score || a.index - b.index).slice(0, max);
    return chosen
      .sort((a, b) => a.index - b.index)
      .map((c) => c.sentence)
      .join(' ');
  }

  private sentenceScore(sentence: string): number {
    return this.ranked.reduce((score, term, rank) => (contains(sentence, term.text) ? score + 1 / (1 + rank) : score), 0);
  }

  private bestTermIn(sentence: string, avoid: ReadonlySet<string>): string | undefined {
    return this.terms.find((term) => !avoid.has(term.toLowerCase()) && contains(sentence, term));
  }
}

function contentSentences(text: string): string[] {
  const out: string[] = [];
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine
      .replace(/^\s*(?:[-*•>#]+|\d+[.)]|\[\d+\]|(?:chunk|source|passage|excerpt)\s*\d*\s*[:.-])\s*/i, '')
      .trim();
    if (line === '') continue;
    for (const piece of line.split(/(?<=[.!?])\s+(?=["'(\p{Lu}\d])/u)) {
      const sentence = piece.trim();
      const wordCount = sentence.split(/\s+/).length;
      if (wordCount < 5 || sentence.length > 500) continue;
      if (INSTRUCTION.test(sentence) || /\bJSON\b|\bschema\b/i.test(sentence)) continue;
      if (!out.includes(sentence)) out.push(sentence);
    }
  }
  return out;
}

/** Whether `text` has `term` as whole words (any case). */
function contains(text: string, term: string): boolean {
  return new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(term)}(?![\\p{L}\\p{N}])`, 'iu').test(text);
}

function words(text: string): string[] {
  return text.match(/\p{L}[\p{L}\p{N}'-]*\p{L}|\p{L}/gu) ?? [];
}

function lastWord(sentence: string): string {
  return words(sentence).at(-1) ?? sentence;
}

function capitalise(term: string): string {
  return term.charAt(0).toUpperCase() + term.slice(1);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function stableHash(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0);
}
