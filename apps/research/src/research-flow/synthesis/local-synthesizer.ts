import { contentWords, relevance, sentencesOf, similarity } from '../text/sentences.js';
import { sourcesOf, type SynthesisRequest, type SynthesisResult, type Synthesizer } from './synthesizer.js';

export const LOCAL_SYNTHESIZER_MODEL = 'local/extractive';
export const LOCAL_SYNTHESIS_LABEL =
  '_Local extractive synthesis: no model was called. Sentences from the reports are grouped where several sources say the same thing; each is followed by the sources it comes from._';

interface Finding {
  readonly sentence: string;
  readonly score: number;
  readonly labels: string[];
  readonly order: number;
}

/** A report's sentences without the local researcher's own apparatus (its label, quotes and citations). */
function claimsOf(content: string): string[] {
  return sentencesOf(content.replace(/^_Local extractive[^\n]*_$/gm, '').replace(/^\*\*Question:\*\*.*$/gm, '').replace(/^#+ .*$/gm, ''))
    .map((s) => s.replace(/\s*\[(?:E\d+|Q)\]\s*$/, '').replace(/^"(.*)"$/, '$1').trim())
    .filter((s) => !s.startsWith('[') && s.length >= 20);
}

/**
 * The local default of the synthesis: groups near-identical sentences across the sources (so an
 * agreement between providers shows as one sentence citing all of them), keeps the ones most
 * relevant to the question, and cites every source by label. It never writes a sentence itself.
 */
export class LocalSynthesizer implements Synthesizer {
  constructor(private readonly maxFindings = 12) {}

  synthesize(request: SynthesisRequest): Promise<SynthesisResult> {
    request.signal.throwIfAborted();
    const question = new Set(contentWords(request.prompt));
    const sources = sourcesOf(request.reports, request.externalReports);
    const findings: Finding[] = [];
    let order = 0;
    for (const source of sources) {
      for (const sentence of claimsOf(source.content)) {
        const same = findings.find((f) => similarity(f.sentence, sentence) >= 0.5);
        if (same !== undefined) {
          if (!same.labels.includes(source.label)) same.labels.push(source.label);
          continue;
        }
        findings.push({ sentence, score: relevance(sentence, question), labels: [source.label], order: order++ });
      }
    }
    const ranked = [...findings].sort((a, b) => b.labels.length - a.labels.length || b.score - a.score || a.order - b.order).slice(0, this.maxFindings);
    const cite = (f: Finding) => `- ${f.sentence} ${f.labels.map((l) => `[${l}]`).join('')}`;
    const agreed = ranked.filter((f) => f.labels.length > 1);
    const single = ranked.filter((f) => f.labels.length === 1);
    const lines = [LOCAL_SYNTHESIS_LABEL, ''];
    if (agreed.length > 0) lines.push('## Where the sources agree', '', ...agreed.map(cite), '');
    if (single.length > 0) lines.push('## Findings from one source', '', ...single.map(cite), '');
    if (ranked.length === 0) lines.push('The sources contain no sentence to synthesise.', '');
    lines.push('## Sources', '', ...sources.map((s) => `- ${s.heading}`));
    return Promise.resolve({ content: lines.join('\n'), model: LOCAL_SYNTHESIZER_MODEL, local: true, costUsd: 0 });
  }
}
