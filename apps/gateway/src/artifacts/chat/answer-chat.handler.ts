import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AnswerChat, ChatAnswered, type MessageData } from '@openpaw/contracts';
import { currentTraceparent } from '@openpaw/platform';
import { COMMAND_PUBLISHER, type CommandPublisher, GATEWAY_SOURCE } from '../../runs/ports.js';
import { ARTIFACTS_API_CONFIG, type ArtifactsApiConfig } from '../config.js';
import { ArtifactReplies } from '../replies/artifact-replies.js';

export interface AnswerChatCommand {
  readonly userId: string;
  readonly notebookId: string;
  readonly message: string;
  readonly sourceIds: readonly string[];
  readonly signal?: AbortSignal;
}

export type AnswerChatResult =
  | { readonly kind: 'answered'; readonly data: MessageData<typeof ChatAnswered> }
  | { readonly kind: 'failed'; readonly errorCode: string; readonly error: string }
  | { readonly kind: 'timeout' };

/**
 * A chat message that is not an artifact request: `AnswerChat` to the artifacts service (the gateway
 * never calls an LLM itself) and its answer, awaited with a timeout.
 */
@Injectable()
export class AnswerChatHandler {
  constructor(
    private readonly replies: ArtifactReplies,
    @Inject(COMMAND_PUBLISHER) private readonly publisher: CommandPublisher,
    @Inject(ARTIFACTS_API_CONFIG) private readonly config: ArtifactsApiConfig,
  ) {}

  async execute(command: AnswerChatCommand): Promise<AnswerChatResult> {
    const commandId = randomUUID();
    const traceparent = currentTraceparent();
    const reply = await this.replies.request(commandId, { timeoutMs: this.config.chatTimeoutMs, signal: command.signal }, () =>
      this.publisher.publish(
        AnswerChat,
        { userId: command.userId, notebookId: command.notebookId, message: command.message, sourceIds: [...new Set(command.sourceIds)].sort() },
        { id: commandId, source: GATEWAY_SOURCE, correlationId: commandId, userId: command.userId, ...(traceparent === undefined ? {} : { traceparent }) },
      ),
    );
    if (reply === undefined) return { kind: 'timeout' };
    switch (reply.type) {
      case ChatAnswered.subject:
        return { kind: 'answered', data: reply.data };
      case 'openpaw.evt.artifact.ChatFailed.v1':
        return { kind: 'failed', errorCode: reply.data.errorCode, error: reply.data.error };
      default:
        return { kind: 'failed', errorCode: 'internal', error: `unexpected reply ${reply.type}` };
    }
  }
}
