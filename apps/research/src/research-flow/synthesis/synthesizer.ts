import type { ExternalReport, LegReport as ReportOfLeg, MessageData, ResearchProvider, ResearchSynthesized } from '@openpaw/contracts';

export type Attribution = NonNullable<MessageData<typeof ResearchSynthesized>['synthesis']>['attributions'][number];

export interface SynthesisRequest {
  readonly runId: string;
  readonly userId: string;
  readonly prompt: string;
  readonly reports: readonly ReportOfLeg[];
  readonly externalReports: readonly ExternalReport[];
  readonly synthesisLlm: ResearchProvider;
  readonly apiKey: string | null;
  readonly costCapUsd: number;
  readonly signal: AbortSignal;
}

export interface SynthesisResult {
  readonly content: string;
  readonly model: string;
  readonly local: boolean;
  readonly costUsd: number;
  /** True when the model stopped at its output limit (the synthesis is not whole). */
  readonly cutShort?: boolean;
}

/** Writes one report from several, citing which source said what. Throws `LegFailure`. */
export interface Synthesizer {
  synthesize(request: SynthesisRequest): Promise<SynthesisResult>;
}

/** A source of the synthesis: a provider's report or an external report, with the label it is cited by. */
export interface SynthesisSource {
  /** `openai`, ..., or `external:<n>` (1-based). */
  readonly source: string;
  /** What the text cites in square brackets: `openai`, `External 1`. */
  readonly label: string;
  readonly heading: string;
  readonly content: string;
}

export function sourcesOf(reports: readonly ReportOfLeg[], externalReports: readonly ExternalReport[]): SynthesisSource[] {
  return [
    // A cut report says so in its heading, so the synthesis does not read its end as the provider's conclusion.
    ...reports.map((r) => ({ source: r.provider, label: r.provider, heading: `[${r.provider}] (${r.model})${r.truncated === true ? ' (this report was cut short: it is not whole)' : ''}`, content: r.content })),
    ...externalReports.map((r, i) => ({
      source: `external:${i + 1}`,
      label: `External ${i + 1}`,
      heading: `[External ${i + 1}]${r.title === undefined ? '' : ` ${r.title}`}`,
      content: r.content,
    })),
  ];
}

/** Per source, how many sentences of the synthesis cite it (`[label]`, case-insensitive). */
export function attributionsOf(content: string, sources: readonly SynthesisSource[]): Attribution[] {
  const sentences = content.split(/(?<=[.?!\]])\s+|\n+/).filter((s) => s.trim() !== '');
  return sources.map((s) => {
    const cite = new RegExp(`\\[${escapeRegExp(s.label)}\\]`, 'i');
    return { source: s.source, label: s.label, sentences: sentences.filter((sentence) => cite.test(sentence)).length };
  });
}

export const providerLabels = (providers: readonly ResearchProvider[]): string => providers.map((p) => `[${p}]`).join('');

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
