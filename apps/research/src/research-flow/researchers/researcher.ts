import { OpenPawError } from '@openpaw/contracts';
import type { ExternalReport, LegFailureReason, ResearchProvider } from '@openpaw/contracts';
import type { BackgroundCallLedger } from '@openpaw/providers';

/** One leg as a researcher receives it: the user's key already opened (never logged). */
export interface LegRequest {
  readonly runId: string;
  readonly userId: string;
  readonly provider: ResearchProvider;
  readonly prompt: string;
  readonly externalReports: readonly ExternalReport[];
  readonly apiKey: string | null;
  readonly costCapUsd: number;
  /** Aborts at the leg's cap or on a cancel. */
  readonly signal: AbortSignal;
  /** Where a call the provider runs in the background keeps its id, by the leg's command id: a redelivered leg resumes it. */
  readonly backgroundCalls?: BackgroundCallLedger;
}

export interface LegReport {
  /** `provider/model` that answered. */
  readonly model: string;
  readonly content: string;
  readonly local: boolean;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
  readonly costUsd: number;
  /** True when the model stopped at its output limit: the report is not whole (see `stoppedAtOutputLimit`). */
  readonly cutShort?: boolean;
}

/**
 * Whether a model's finish reason means it ran out of output tokens mid-answer: OpenAI chat says
 * `length`, Anthropic `max_tokens`, Gemini `MAX_TOKENS`, OpenAI's Responses API `max_output_tokens`.
 */
export function stoppedAtOutputLimit(finishReason: string | undefined): boolean {
  return finishReason !== undefined && ['length', 'max_tokens', 'max_output_tokens'].includes(finishReason.toLowerCase());
}

/** A leg that failed for a reason the saga acts on (anything else is thrown and the command redelivered). */
export class LegFailure extends OpenPawError {
  readonly code = 'research_leg_failed';
  override readonly name = 'LegFailure';
  constructor(
    readonly reason: LegFailureReason,
    detail: string,
    readonly costUsd = 0,
  ) {
    super(detail);
  }
}

/** Runs a research prompt on one provider. Throws `LegFailure`. */
export interface Researcher {
  research(request: LegRequest): Promise<LegReport>;
}

/** The leg's instructions: the same for every provider, so their reports can be compared. */
export function legMessages(prompt: string, externalReports: readonly ExternalReport[]): { role: 'system' | 'user'; content: string }[] {
  const context =
    externalReports.length === 0
      ? ''
      : `\n\nContext provided by the user (cite it as [External n] where you use it):\n${externalReports
          .map((r, i) => `[External ${i + 1}${r.title === undefined ? '' : `: ${r.title}`}]\n${r.content}`)
          .join('\n\n')}`;
  return [
    {
      role: 'system',
      content:
        'You are a meticulous research analyst. Answer the research question with a structured report in Markdown: ' +
        'a one-paragraph summary, key findings as a list, then caveats and open questions. State figures with their source and year; ' +
        'say plainly what you are unsure of.',
    },
    { role: 'user', content: `Research question:\n${prompt}${context}` },
  ];
}
