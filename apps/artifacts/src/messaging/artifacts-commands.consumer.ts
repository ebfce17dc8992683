import { Inject, Injectable } from '@nestjs/common';
import {
  AddSource,
  AnswerChat,
  ArtifactJobProgress,
  CaptureSnapshot,
  type Envelope,
  GenerateArtifact,
  type MessageData,
  PlanArtifact,
  ValidateArtifact,
} from '@openpaw/contracts';
import {
  answerOnce,
  type HandlerOutcome,
  type KeptReplyStore,
  MESSAGE_PUBLISHER,
  type MessagePublisher,
  OnMessage,
  publishReplies,
  type Reply,
  replyTo,
} from '@openpaw/messaging';
import { AddSourceHandler } from '../handlers/add-source/add-source.handler.js';
import { AnswerChatHandler } from '../handlers/answer-chat/answer-chat.handler.js';
import { CaptureSnapshotHandler } from '../handlers/capture-snapshot/capture-snapshot.handler.js';
import { GenerateArtifactHandler } from '../handlers/generate-artifact/generate-artifact.handler.js';
import { PlanArtifactHandler } from '../handlers/plan-artifact/plan-artifact.handler.js';
import { ValidateArtifactHandler } from '../handlers/validate-artifact/validate-artifact.handler.js';
import { REPLY_STORE } from '../ports.js';

export const ARTIFACTS_SOURCE = '/openpaw/artifacts';

const ACK: HandlerOutcome = { kind: 'ack' };

/**
 * The artifacts service's JetStream transport: builds each handler's command from the envelope,
 * answers it once (`answerOnce`: a redelivery republishes the kept answer) and publishes the
 * answer with ids derived from the command (correlation = the command's, causation = the command).
 */
@Injectable()
export class ArtifactsCommandsConsumer {
  constructor(
    private readonly addSource: AddSourceHandler,
    private readonly captureSnapshot: CaptureSnapshotHandler,
    private readonly planArtifact: PlanArtifactHandler,
    private readonly generateArtifact: GenerateArtifactHandler,
    private readonly validateArtifact: ValidateArtifactHandler,
    private readonly answerChat: AnswerChatHandler,
    @Inject(REPLY_STORE) private readonly replies: KeptReplyStore,
    @Inject(MESSAGE_PUBLISHER) private readonly publisher: MessagePublisher,
  ) {}

  @OnMessage(AddSource)
  onAddSource(envelope: Envelope<MessageData<typeof AddSource>>): Promise<HandlerOutcome> {
    return this.answer(envelope, () => this.addSource.execute({ commandId: envelope.id, issuedAt: new Date(envelope.time), data: envelope.data }));
  }

  @OnMessage(CaptureSnapshot)
  onCaptureSnapshot(envelope: Envelope<MessageData<typeof CaptureSnapshot>>): Promise<HandlerOutcome> {
    return this.answer(envelope, () => this.captureSnapshot.execute({ commandId: envelope.id, data: envelope.data }));
  }

  @OnMessage(PlanArtifact)
  onPlanArtifact(envelope: Envelope<MessageData<typeof PlanArtifact>>): Promise<HandlerOutcome> {
    return this.answer(envelope, () => this.planArtifact.execute({ commandId: envelope.id, data: envelope.data }));
  }

  @OnMessage(GenerateArtifact)
  onGenerateArtifact(envelope: Envelope<MessageData<typeof GenerateArtifact>>): Promise<HandlerOutcome> {
    return this.answer(envelope, () => this.generateArtifact.execute({ commandId: envelope.id, data: envelope.data }));
  }

  /** Reports "checking structure" (90%) before validating, as the spec's worker does. */
  @OnMessage(ValidateArtifact)
  async onValidateArtifact(envelope: Envelope<MessageData<typeof ValidateArtifact>>): Promise<HandlerOutcome> {
    const progress = replyTo(envelope.id, ArtifactJobProgress, {
      runId: envelope.data.runId,
      commandId: envelope.id,
      phase: 'validating',
      progress: 90,
      detail: 'Checking structure',
    });
    await publishReplies(this.publisher, envelope, [progress], { source: ARTIFACTS_SOURCE });
    return this.answer(envelope, () => this.validateArtifact.execute({ commandId: envelope.id, data: envelope.data }));
  }

  @OnMessage(AnswerChat)
  onAnswerChat(envelope: Envelope<MessageData<typeof AnswerChat>>): Promise<HandlerOutcome> {
    return this.answer(envelope, () => this.answerChat.execute({ commandId: envelope.id, data: envelope.data }));
  }

  private async answer(command: Envelope, work: () => Promise<readonly Reply[]>): Promise<HandlerOutcome> {
    await publishReplies(this.publisher, command, await answerOnce(this.replies, command.id, work), { source: ARTIFACTS_SOURCE });
    return ACK;
  }
}
