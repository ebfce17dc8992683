import { createHash } from 'node:crypto';

/**
 * Facts the local model can build answers from: the content sentences of a prompt (instructions
 * and schema text dropped), its key terms ranked by frequency, and per sentence a cloze fact (the
 * sentence's best key term as the answer, other key terms as distractors).
 */
export interface Fact {
  readonly sentence: string;
  /** The key term the fact is about. */
  readonly answer: string;
  /** The sentence with the answer blanked out. */
  readonly cloze: string;
}

const STOPWORDS = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below between both but by can could did do does doing down ' +
    'during each either etc even ever every few for from further had has have having he her here hers herself him himself his how however i if in into is it its itself ' +
    'just like made make many may me might more most much must my myself near neither no nor not now of off often on once one only or other our ours ourselves out over own ' +
    'per quite rather same shall she should since so some such than that the their theirs them themselves then there these they this those though through thus to too ' +
    'under until up upon us use used using very via was we well were what when where whether which while who whom whose why will with within without would yet you your ' +
    'yours yourself yourselves called known called become becomes became another each many several much used uses first second third based include includes including'
  ).split(/\s+/),
);

/** Sentences that address the model rather than carry content. */
const INSTRUCTION = /^(please\s+)?(generate|create|write|return|produce|make|respond|output|use|format|include|give|list|provide|answer|summari[sz]e|build|based on|you are|you will|your task|do not|don't|ensure|reply|read|consider|given the)\b/i;

export class TextFacts {
  readonly sentences: readonly string[];
  /** The text the facts were taken from (for counts such as "5 questions" and enum mentions). */
  readonly sourceText: string;
  /** Key terms, best first. */
  readonly terms: readonly string[];
  private readonly termRank = new Map<string, number>();

  constructor(text: string) {
    this.sourceText = text;
    this.sentences = contentSentences(text);
    this.terms = rankTerms(this.sentences);
    this.terms.forEach((term, rank) => this.termRank.set(term.toLowerCase(), rank));
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
    const cloze = sentence.replace(new RegExp(`\\b${escapeRegExp(answer)}\\b`, 'gi'), '_____');
    return { sentence, answer, cloze };
  }

  /** `count` options: the answer plus distractors (key terms absent from the sentence), at a stable position. */
  options(fact: Fact, count: number): { options: string[]; correctIndex: number } {
    const n = Math.max(1, count);
    const lowerSentence = fact.sentence.toLowerCase();
    const distractors: string[] = [];
    const taken = new Set([fact.answer.toLowerCase()]);
    const consider = (term: string, requireAbsent: boolean): void => {
      const lower = term.toLowerCase();
      if (distractors.length >= n - 1 || taken.has(lower)) return;
      if (requireAbsent && new RegExp(`\\b${escapeRegExp(lower)}\\b`).test(lowerSentence)) return;
      taken.add(lower);
      distractors.push(term);
    };
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
    let score = 0;
    for (const word of words(sentence)) {
      const rank = this.termRank.get(word.toLowerCase());
      if (rank !== undefined) score += 1 / (1 + rank);
    }
    return score;
  }

  private bestTermIn(sentence: string, avoid: ReadonlySet<string>): string | undefined {
    let best: string | undefined;
    let bestRank = Infinity;
    for (const word of words(sentence)) {
      const rank = this.termRank.get(word.toLowerCase());
      if (rank !== undefined && rank < bestRank && !avoid.has(word.toLowerCase())) {
        best = this.terms[rank];
        bestRank = rank;
      }
    }
    return best;
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

function rankTerms(sentences: readonly string[]): string[] {
  const stats = new Map<string, { count: number; surface: string; firstSeen: number }>();
  let position = 0;
  for (const sentence of sentences) {
    for (const word of words(sentence)) {
      const lower = word.toLowerCase();
      if (lower.length < 4 || STOPWORDS.has(lower) || /^\d/.test(lower)) continue;
      const entry = stats.get(lower);
      if (entry === undefined) stats.set(lower, { count: 1, surface: word, firstSeen: position++ });
      else {
        entry.count += 1;
        // Prefer the lower-case spelling unless the word is always capitalised (a name).
        if (word === lower) entry.surface = lower;
      }
    }
  }
  return [...stats.values()].sort((a, b) => b.count - a.count || b.surface.length - a.surface.length || a.firstSeen - b.firstSeen).map((e) => e.surface);
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
