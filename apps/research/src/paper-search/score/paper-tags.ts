import type { Paper, PaperTag } from '@openpaw/contracts';

const RULES: readonly [PaperTag, RegExp][] = [
  ['review', /\b(survey|review|overview|tutorial|perspective|state of the art)\b/i],
  ['dataset', /\b(dataset|data set|benchmark|corpus|corpora)\b/i],
  ['theoretical', /\b(theorem|theoretical|theory|proof|bound|bounds|convergence|complexity)\b/i],
  ['empirical', /\b(empirical|experiment|experiments|evaluation|trial|cohort|study|measurements?)\b/i],
  ['method', /\b(we propose|we introduce|method|approach|algorithm|architecture|model|network|networks|framework|technique)\b/i],
];

/** Tags read from the title and abstract by keyword rules (the local scorer's tags, and a check on LLM tags). */
export function tagsByRules(paper: Paper): PaperTag[] {
  const text = `${paper.title} ${paper.abstract ?? ''}`;
  return RULES.filter(([, pattern]) => pattern.test(text)).map(([tag]) => tag);
}
