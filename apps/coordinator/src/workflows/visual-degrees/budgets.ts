import type { FailureReason, Usage, VisualDegreesData } from './visual-degrees.model.js';

/** A run's budgets (spec 03): what is left, what a reply's usage costs, and why a spent one ends the run. */

type D = VisualDegreesData;

export function remaining(data: D): { searchCalls: number; recognitionCalls: number; llmCalls: number } {
  return {
    searchCalls: Math.max(0, data.budgets.maxSearchCalls - data.used.searchCalls),
    recognitionCalls: Math.max(0, data.budgets.maxRecognitionCalls - data.used.recognitionCalls),
    llmCalls: Math.max(0, data.budgets.maxLlmCalls - data.used.llmCalls),
  };
}

export function charge(data: D, usage: Partial<Usage>): D {
  const used = data.used;
  return {
    ...data,
    used: {
      searchCalls: used.searchCalls + (usage.searchCalls ?? 0),
      recognitionCalls: used.recognitionCalls + (usage.recognitionCalls ?? 0),
      llmCalls: used.llmCalls + (usage.llmCalls ?? 0),
      imagesSkipped: used.imagesSkipped + (usage.imagesSkipped ?? 0),
      costUsd: Math.round((used.costUsd + (usage.costUsd ?? 0)) * 1e6) / 1e6,
    },
  };
}

export function budgetReason(kind: 'search' | 'recognition' | undefined): FailureReason {
  return kind === 'recognition' ? 'recognition_budget_exhausted' : 'search_budget_exhausted';
}

/** Checks the search budgets before a search step; undefined when there is some left. */
export function searchBudgetSpent(data: D): FailureReason | undefined {
  const left = remaining(data);
  if (left.searchCalls <= 0) return 'search_budget_exhausted';
  if (left.recognitionCalls <= 0) return 'recognition_budget_exhausted';
  return undefined;
}
