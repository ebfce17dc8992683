import type { IntentType, ParsedIntent, SkillProvenance } from '@openpaw/contracts';
import { parsedIntent } from '@openpaw/contracts';
import { foldText, isStopword } from '../text/normalise.js';
import { readStatedConstraints } from './constraint-phrases.js';
import type { IntentParser } from './intent-parser.js';

export const LOCAL_INTENT_PROVENANCE: SkillProvenance = {
  model: 'local/rules',
  local: true,
  method: 'LOCAL rule-based parse (no LLM): constraint phrases, intent keywords, concept phrases between stopwords',
  costUsd: 0,
};

/** Words that say what kind of search it is, not what it is about. */
const REQUEST_WORDS = new Set(
  'find search look looking need want get list give show me please papers paper articles article literature work works publications recent latest relevant related key important good best only also focus especially particularly just mainly'.split(' '),
);
const INTENT_WORDS: readonly [IntentType, RegExp][] = [
  ['survey', /\b(survey|surveys|review|reviews|overview|state of the art|literature review|systematic review|tutorial)\b/i],
  ['dataset', /\b(dataset|datasets|data set|benchmark|benchmarks|corpus|corpora)\b/i],
  ['baseline', /\b(baseline|baselines|compare|comparison|comparing|versus|vs\.?)\b/i],
];

/**
 * The local intent parser: reads constraints stated in words, the intent type from its keywords,
 * and concepts as the runs of content words between stopwords ("graph neural networks for molecular
 * property prediction" → "graph neural networks", "molecular property prediction"). Computed from the
 * query, no LLM; its provenance says so.
 */
export class LocalIntentParser implements IntentParser {
  constructor(private readonly currentYear: () => number) {}

  parse(query: string): Promise<{ intent: ParsedIntent; provenance: SkillProvenance }> {
    const stated = readStatedConstraints(query, this.currentYear());
    const intentType = INTENT_WORDS.find(([, pattern]) => pattern.test(query))?.[0] ?? 'method';
    const withoutIntentWords = INTENT_WORDS.reduce((text, [, pattern]) => text.replace(new RegExp(pattern.source, 'gi'), ' '), stated.rest);
    const concepts = conceptPhrases(withoutIntentWords);
    const topic =
      stated.rest
        .replace(/^(?:please\s+)?(?:find|search for|look for|i need|i want|show me|give me|list)\s+(?:me\s+)?/i, '')
        .replace(/^(?:a|an|the|some)\s+/i, '')
        .replace(/[\s,;:.!?]+$/, '')
        .trim() || query.trim();
    const intent = parsedIntent.parse({
      topic: topic.slice(0, 500),
      concepts: concepts.length > 0 ? concepts : [foldText(query).slice(0, 200) || query.trim().slice(0, 200)],
      intentType,
      constraints: { yearFrom: stated.yearFrom, yearTo: stated.yearTo, language: stated.language, maxResults: stated.maxResults ?? 100 },
    });
    return Promise.resolve({ intent, provenance: LOCAL_INTENT_PROVENANCE });
  }
}

/** Runs of content words (at most four words each), in order, without repeats. */
export function conceptPhrases(text: string): string[] {
  const phrases: string[] = [];
  let run: string[] = [];
  const flush = (): void => {
    for (let i = 0; i < run.length; i += 4) phrases.push(run.slice(i, i + 4).join(' '));
    run = [];
  };
  for (const word of foldText(text).split(' ')) {
    if (word === '' || isStopword(word) || REQUEST_WORDS.has(word) || /^\d+$/.test(word)) flush();
    else run.push(word);
  }
  flush();
  return [...new Set(phrases)].slice(0, 20);
}
