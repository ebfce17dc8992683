import type { ExternalReport } from '@openpaw/contracts';
import { contentWords, relevance, sentencesOf, similarity } from '../text/sentences.js';
import type { LegReport, LegRequest, Researcher } from './researcher.js';

export const LOCAL_RESEARCHER_MODEL = 'local/extractive';
export const LOCAL_LABEL = '_Local extractive researcher: no model was called. The findings below are sentences quoted from the material given with the question, ranked by how much of the question they address._';

/** A sentence of the material, with where it came from. */
interface Candidate {
  readonly sentence: string;
  /** `[E1]`, `[E2]`, ... for external reports, `[Q]` for the question itself. */
  readonly cite: string;
  readonly score: number;
  readonly order: number;
}

/**
 * The local default of a leg (no provider account, no network): an extractive researcher over the
 * external reports the user gave (and the question's own text). It ranks real sentences by how many
 * of the question's content words they contain, drops near-duplicates, and quotes the best ones with
 * their source, labelled as local. It never invents a sentence.
 */
export class LocalExtractiveResearcher implements Researcher {
  constructor(private readonly maxFindings = 8) {}

  research(request: LegRequest): Promise<LegReport> {
    request.signal.throwIfAborted();
    const content = localReport(request.prompt, request.externalReports, this.maxFindings);
    const words = contentWords(content).length;
    return Promise.resolve({ model: LOCAL_RESEARCHER_MODEL, content, local: true, usage: { inputTokens: 0, outputTokens: words }, costUsd: 0 });
  }
}

export function localReport(prompt: string, externalReports: readonly ExternalReport[], maxFindings: number): string {
  const question = new Set(contentWords(prompt));
  const candidates: Candidate[] = [];
  let order = 0;
  externalReports.forEach((report, i) => {
    for (const sentence of sentencesOf(report.content)) candidates.push({ sentence, cite: `[E${i + 1}]`, score: relevance(sentence, question), order: order++ });
  });
  // The question's own statements (not its questions) are material too, e.g. pasted notes.
  for (const sentence of sentencesOf(prompt)) {
    if (!sentence.trim().endsWith('?')) candidates.push({ sentence, cite: '[Q]', score: relevance(sentence, question) * 0.5, order: order++ });
  }
  const chosen: Candidate[] = [];
  for (const candidate of [...candidates].sort((a, b) => b.score - a.score || a.order - b.order)) {
    if (chosen.length >= maxFindings) break;
    if (candidate.score <= 0 && chosen.length > 0) break;
    if (chosen.some((c) => similarity(c.sentence, candidate.sentence) > 0.7)) continue;
    chosen.push(candidate);
  }
  const lines = [LOCAL_LABEL, '', `**Question:** ${prompt.replace(/\s+/g, ' ').trim()}`, ''];
  if (chosen.length === 0) {
    lines.push('No material was given with the question (no external report), so there is nothing to quote. Add external reports, or select a model provider.');
  } else {
    lines.push('## Findings', '');
    chosen.forEach((c, i) => lines.push(`${i + 1}. "${c.sentence}" ${c.cite}`));
    lines.push('', '## Sources', '');
    externalReports.forEach((r, i) => {
      if (chosen.some((c) => c.cite === `[E${i + 1}]`)) lines.push(`- [E${i + 1}] ${r.title ?? `External report ${i + 1}`}`);
    });
    if (chosen.some((c) => c.cite === '[Q]')) lines.push('- [Q] the question as asked');
  }
  return lines.join('\n');
}
