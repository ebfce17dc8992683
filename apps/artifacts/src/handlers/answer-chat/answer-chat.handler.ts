import { Inject, Injectable } from '@nestjs/common';
import { type AnswerChat, ChatAnswered, ChatFailed, type MessageData, type SnapshotChunk } from '@openpaw/contracts';
import type { LlmClient } from '@openpaw/providers';
import { type Reply, replyTo } from '@openpaw/messaging';
import { chatMessages } from '../../domain/agent/prompts.js';
import { ARTIFACTS_LLM, ARTIFACTS_SETTINGS } from '../../ports.js';
import type { ArtifactsSettings } from '../../config.js';
import { NotebookRetriever } from '../capture-snapshot/capture-snapshot.handler.js';
import { llmFailureOf } from '../llm-failure.js';

export interface AnswerChatCommand {
  readonly commandId: string;
  readonly data: MessageData<typeof AnswerChat>;
}

/** Chunks a chat answer is grounded in. */
export const CHAT_K = 5;

/**
 * AnswerChat: a chat message that is not an artifact request, answered by the LLM from the
 * notebook's top chunks for it. Citations are the chunks the answer refers to as [n], or every
 * chunk it was given when it refers to none.
 */
@Injectable()
export class AnswerChatHandler {
  constructor(
    private readonly retriever: NotebookRetriever,
    @Inject(ARTIFACTS_LLM) private readonly llm: LlmClient,
    @Inject(ARTIFACTS_SETTINGS) private readonly settings: ArtifactsSettings,
  ) {}

  async execute(command: AnswerChatCommand): Promise<readonly Reply[]> {
    const { data } = command;
    const failed = (errorCode: MessageData<typeof ChatFailed>['errorCode'], error: string): Reply[] => [
      replyTo(command.commandId, ChatFailed, { commandId: command.commandId, notebookId: data.notebookId, errorCode, error }),
    ];
    const retrieved = await this.retriever.retrieve(data.userId, data.notebookId, data.sourceIds, data.message, CHAT_K);
    if (retrieved.kind === 'unknownSources') return failed('unknown_sources', `unknown source ids in notebook ${data.notebookId}: ${retrieved.missing.join(', ')}`);
    const chunks: SnapshotChunk[] = retrieved.chunks.map((c) => ({ chunk_id: c.chunkId, source_id: c.sourceId, text: c.text }));
    try {
      const answer = await this.llm.chat(chatMessages(data.message, chunks), {
        maxTokens: Math.min(this.settings.maxTokens, 1_500),
        ...(this.settings.llmTimeoutMs === undefined ? {} : { timeoutMs: this.settings.llmTimeoutMs }),
      });
      const referenced = [...answer.text.matchAll(/\[(\d{1,2})\]/g)].map((m) => chunks[Number(m[1]) - 1]).filter((c): c is SnapshotChunk => c !== undefined);
      const cited = referenced.length > 0 ? [...new Map(referenced.map((c) => [c.chunk_id, c])).values()] : chunks;
      return [
        replyTo(command.commandId, ChatAnswered, {
          commandId: command.commandId,
          notebookId: data.notebookId,
          answer: answer.text,
          citations: cited.map((c) => ({ chunk_id: c.chunk_id, source_id: c.source_id })),
          model: answer.model,
        }),
      ];
    } catch (error) {
      const failure = llmFailureOf(error);
      if (failure === undefined) throw error;
      return failed('llm_unavailable', failure.error);
    }
  }
}
