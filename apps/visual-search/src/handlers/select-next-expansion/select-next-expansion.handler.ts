import { ExpansionSelected, type MessageData, type SelectNextExpansion } from '@openpaw/contracts';
import { answerOnceWith, type Reply, replyTo } from '@openpaw/messaging';
import { parseModelRef } from '@openpaw/providers';
import { fallbackSelection, parseSelection, type Selection, type SelectionInput, selectionPrompt, targetSelection } from '../../domain/selection.js';
import type { SelectionPorts } from '../../ports.js';
import { RunMemoryReplies } from '../../memory/run-memory-replies.js';
import type { VisualCommand } from '../command.js';

type FallbackReason = NonNullable<MessageData<typeof ExpansionSelected>['fallbackReason']>;

export interface SelectionSettings {
  readonly maxTokens: number;
  readonly timeoutMs: number;
}

/**
 * SelectNextExpansion (S3): the target when it is among the candidates (no LLM asked: its edge ends the
 * chain); else one LLM call through the LLM port with the spec's inputs, its reply parsed as strict JSON
 * (parseSelection); on invalid JSON, a choice that is not a candidate, an LLM failure, no LLM budget
 * left or no model configured (the local deterministic model cannot choose, so it is neither asked nor
 * charged), the spec's deterministic fallback ranking. Which one decided, and why, is in the reply (so
 * the saga's step log records it). Idempotent per command through run memory.
 */
export class SelectNextExpansionHandler {
  constructor(
    private readonly ports: SelectionPorts,
    private readonly settings: SelectionSettings = { maxTokens: 400, timeoutMs: 30_000 },
  ) {}

  async execute(command: VisualCommand<typeof SelectNextExpansion>): Promise<Reply> {
    const { data, commandId } = command;
    const run = { sessionId: data.sessionId, runId: data.runId };
    return answerOnceWith(new RunMemoryReplies(this.ports.memory, run), commandId, () => this.decide(command));
  }

  private async decide({ commandId, data, signal }: VisualCommand<typeof SelectNextExpansion>): Promise<Reply> {
    const input: SelectionInput = { target: data.target, frontier: data.frontier, candidates: data.candidates, hopsRemaining: data.hopsRemaining, budgetsRemaining: data.budgetsRemaining };
    const reply = (selection: Selection, usage: { llmCalls: number; costUsd: number; model?: string }, fallbackReason?: FallbackReason): Reply => replyTo(commandId, ExpansionSelected, {
      runId: data.runId,
      commandId,
      step: data.step,
      nextCandidates: [...selection.nextCandidates],
      searchQueries: [...selection.searchQueries],
      narration: selection.narration,
      decidedBy: fallbackReason === undefined ? 'llm' : 'fallback',
      ...(fallbackReason !== undefined ? { fallbackReason } : {}),
      usage,
    });
    const noCall = { llmCalls: 0, costUsd: 0 };
    const target = targetSelection(input);
    if (target !== undefined) return reply(target, noCall, 'target_found');
    if (data.budgetsRemaining.llmCalls <= 0) return reply(fallbackSelection(input), noCall, 'no_llm_budget');
    if (parseModelRef(data.model ?? this.ports.llm.describe().defaultModel).provider === 'local') return reply(fallbackSelection(input), noCall, 'no_llm_configured');
    let result;
    try {
      result = await this.ports.llm.chat(selectionPrompt(input), {
        ...(data.model !== undefined ? { model: data.model } : {}),
        maxTokens: this.settings.maxTokens,
        temperature: 0,
        timeoutMs: this.settings.timeoutMs,
        ...(signal === undefined ? {} : { signal }),
      });
    } catch {
      signal?.throwIfAborted();
      return reply(fallbackSelection(input), { llmCalls: 1, costUsd: 0 }, 'llm_unavailable');
    }
    const usage = { llmCalls: 1, costUsd: result.costUsd, model: result.model };
    const parsed = parseSelection(result.text, input);
    return parsed.ok ? reply(parsed.selection, usage) : reply(fallbackSelection(input), usage, parsed.reason);
  }
}
