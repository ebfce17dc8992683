import { contentWords, relevance, sentencesOf, similarity } from '../text/sentences.js';
import { type ClaimFacts, describeFigure, factsOf, figuresDiffer, sameFacts } from './claim-facts.js';
import { sourcesOf, type SynthesisRequest, type SynthesisResult, type SynthesisSource, type Synthesizer } from './synthesizer.js';

export const LOCAL_SYNTHESIZER_MODEL = 'local/extractive';
export const LOCAL_SYNTHESIS_LABEL =
  '_Local extractive synthesis: no model was called. Sentences from the reports are grouped where several sources say the same thing (same figures, same polarity); where similar sentences disagree, each is shown with its source. Each sentence is followed by the sources it comes from._';

/** One sentence and who said it. */
interface Finding {
  readonly sentence: string;
  readonly facts: ClaimFacts;
  readonly score: number;
  readonly labels: string[];
}

/** Sentences about one thing (≥ 0.5 word overlap): one finding when they agree, several when their figures or polarity differ. */
interface Topic {
  readonly findings: Finding[];
  readonly order: number;
}

/** A report's sentence, and the external report it quotes when it quotes one. */
interface Claim {
  readonly sentence: string;
  /** `External n` when the sentence is cited `[En]`: a quote of that report, not the leg's own finding. */
  readonly quotes: string | null;
}

/** A citation of the material a leg was given: `[E1]` (the local researcher), `[External 1]` (a model), `[Q]` (the question). */
const CITATION = /\s*\[(?:E(\d+)|External (\d+)|Q)\]/g;

/** A report's sentences without the local researcher's own apparatus (its label, question and headings), their citations lifted out. */
function claimsOf(content: string): Claim[] {
  return sentencesOf(content.replace(/^_Local extractive[^\n]*_$/gm, '').replace(/^\*\*Question:\*\*.*$/gm, '').replace(/^#+ .*$/gm, ''))
    .map((s) => {
      const cited = [...s.matchAll(CITATION)].map((m) => m[1] ?? m[2]).find((n) => n !== undefined);
      const sentence = s.replace(CITATION, '').trim().replace(/^"(.*)"$/, '$1').replace(/"\s*([.?!])$/, '$1').replace(/^"/, '').trim();
      return { sentence, quotes: cited === undefined ? null : `External ${cited}` };
    })
    .filter((c) => !c.sentence.startsWith('[') && c.sentence.length >= 20);
}

/**
 * The local default of the synthesis. It groups sentences across the sources by topic (content-word
 * overlap); within a topic, sentences merge only when their figures (single digits, units and bounds
 * included) and polarity match, so a disagreement is shown as one, each figure with its source. A
 * leg's quote of an external report counts for that report alone, never as a second source agreeing
 * with it. It keeps the topics most relevant to the question and never writes a claim itself.
 */
export class LocalSynthesizer implements Synthesizer {
  constructor(private readonly maxFindings = 12) {}

  synthesize(request: SynthesisRequest): Promise<SynthesisResult> {
    request.signal.throwIfAborted();
    const question = new Set(contentWords(request.prompt));
    const sources = sourcesOf(request.reports, request.externalReports);
    const topics = topicsOf(sources, question);
    const ranked = [...topics].sort((a, b) => weight(b) - weight(a) || bestScore(b) - bestScore(a) || a.order - b.order).slice(0, this.maxFindings);
    const cite = (f: Finding): string => `${f.sentence} ${f.labels.map((l) => `[${l}]`).join('')}`;
    const agreed = ranked.filter((t) => t.findings.length === 1 && t.findings[0]!.labels.length > 1);
    const differ = ranked.filter((t) => t.findings.length > 1);
    const single = ranked.filter((t) => t.findings.length === 1 && t.findings[0]!.labels.length === 1);
    const lines = [LOCAL_SYNTHESIS_LABEL, ''];
    if (agreed.length > 0) lines.push('## Where the sources agree', '', ...agreed.map((t) => `- ${cite(t.findings[0]!)}`), '');
    if (differ.length > 0) lines.push('## Where the sources differ', '', ...differ.flatMap((t) => [`- ${differenceOf(t.findings)}`, ...t.findings.map((f) => `  - ${cite(f)}`)]), '');
    if (single.length > 0) lines.push('## Findings from one source', '', ...single.map((t) => `- ${cite(t.findings[0]!)}`), '');
    if (ranked.length === 0) lines.push('The sources contain no sentence to synthesise.', '');
    lines.push('## Sources', '', ...sources.map((s) => `- ${s.heading}`));
    return Promise.resolve({ content: lines.join('\n'), model: LOCAL_SYNTHESIZER_MODEL, local: true, costUsd: 0 });
  }
}

/** Above this word overlap (and with the same facts) a leg's sentence restates an external report it was given. */
const QUOTE_SIMILARITY = 0.7;

/**
 * The label a claim is credited to: the external report it quotes (cited `[En]`, or restated with the
 * same facts: every leg is given the external reports, so repeating one is not independent evidence),
 * else its own source.
 */
function creditOf(claim: Claim, source: SynthesisSource, externals: readonly { label: string; sentences: readonly string[] }[]): string {
  if (source.source.startsWith('external:')) return source.label;
  if (claim.quotes !== null && externals.some((e) => e.label === claim.quotes)) return claim.quotes;
  const facts = factsOf(claim.sentence);
  const quoted = externals.find((e) => e.sentences.some((s) => similarity(s, claim.sentence) >= QUOTE_SIMILARITY && sameFacts(factsOf(s), facts)));
  return quoted?.label ?? source.label;
}

function topicsOf(sources: readonly SynthesisSource[], question: ReadonlySet<string>): Topic[] {
  const externals = sources.filter((s) => s.source.startsWith('external:')).map((s) => ({ label: s.label, sentences: claimsOf(s.content).map((c) => c.sentence) }));
  const topics: Topic[] = [];
  for (const source of sources) {
    for (const claim of claimsOf(source.content)) {
      const label = creditOf(claim, source, externals);
      const facts = factsOf(claim.sentence);
      const finding = (): Finding => ({ sentence: claim.sentence, facts, score: relevance(claim.sentence, question), labels: [label] });
      const topic = topics.find((t) => t.findings.some((f) => similarity(f.sentence, claim.sentence) >= 0.5));
      if (topic === undefined) {
        topics.push({ findings: [finding()], order: topics.length });
        continue;
      }
      const same = topic.findings.find((f) => sameFacts(f.facts, facts) && similarity(f.sentence, claim.sentence) >= 0.5);
      if (same === undefined) topic.findings.push(finding());
      else if (!same.labels.includes(label)) same.labels.push(label);
    }
  }
  // A topic whose variants all come from one source is that source's findings, not a disagreement between sources.
  return topics.flatMap((t) => (t.findings.length > 1 && new Set(t.findings.flatMap((f) => f.labels)).size === 1 ? t.findings.map((f) => ({ findings: [f], order: t.order })) : [t]));
}

/** Topics several sources speak to come first (agreements and disagreements alike). */
function weight(topic: Topic): number {
  return new Set(topic.findings.flatMap((f) => f.labels)).size;
}

function bestScore(topic: Topic): number {
  return Math.max(...topic.findings.map((f) => f.score));
}

/** "Figures differ: at most 95 percent [openai]; 85 percent [External 1]", or the polarity that differs. */
function differenceOf(findings: readonly Finding[]): string {
  const cites = (f: Finding): string => f.labels.map((l) => `[${l}]`).join('');
  const parts: string[] = [];
  if (findings.some((f) => figuresDiffer(f.facts, findings[0]!.facts))) {
    parts.push(`Figures differ: ${findings.map((f) => `${f.facts.figures.map(describeFigure).join(', ') || 'no figure'} ${cites(f)}`).join('; ')}.`);
  }
  if (new Set(findings.map((f) => f.facts.negated)).size > 1) parts.push(`One source denies what another states: ${findings.filter((f) => f.facts.negated).map(cites).join('')} negates.`);
  return parts.join(' ');
}
