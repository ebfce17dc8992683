import { Inject, Injectable } from '@nestjs/common';
import {
  AssetVersionCreated,
  type Envelope,
    type MessageData,
  ProblemRegistered,
  RegisterSolution,
  RenderPriorityVideo,
  RenderVideo,
  VideoRendered,
  VideoRenderFailed,
} from '@openpaw/contracts';
import { type HandlerOutcome, MESSAGE_PUBLISHER, type MessagePublisher, OnMessage, replyMetaFor } from '@openpaw/messaging';
import { RegisterSolutionHandler } from '../handlers/register-solution/register-solution.handler.js';
import { RenderVideoHandler } from '../handlers/render-video/render-video.handler.js';
import type { AssetsReply } from '../ports.js';

export const ASSETS_SOURCE = '/openpaw/assets';

/**
 * The assets service's JetStream transport: builds each command from its (validated) envelope, calls
 * the handler and publishes the replies it returns, in order, as answers to the command
 * (correlation = the command's run, causation = the command, same user).
 */
@Injectable()
export class AssetsCommandsConsumer {
  constructor(
    private readonly registerSolution: RegisterSolutionHandler,
    private readonly renderVideo: RenderVideoHandler,
    @Inject(MESSAGE_PUBLISHER) private readonly publisher: MessagePublisher,
  ) {}

  @OnMessage(RegisterSolution)
  async onRegisterSolution(envelope: Envelope<MessageData<typeof RegisterSolution>>): Promise<HandlerOutcome> {
    const replies = await this.registerSolution.execute({ commandId: envelope.id, data: envelope.data });
    await this.publish(envelope, replies);
    return { kind: 'ack' };
  }

  @OnMessage(RenderVideo)
  async onRenderVideo(envelope: Envelope<MessageData<typeof RenderVideo>>): Promise<HandlerOutcome> {
    const replies = await this.renderVideo.execute({ commandId: envelope.id, data: envelope.data });
    await this.publish(envelope, replies);
    return { kind: 'ack' };
  }

  /** The same render, consumed on the priority lane (`video_generation: sync`). */
  @OnMessage(RenderPriorityVideo)
  async onRenderPriorityVideo(envelope: Envelope<MessageData<typeof RenderPriorityVideo>>): Promise<HandlerOutcome> {
    return this.onRenderVideo(envelope);
  }

  private async publish(command: Envelope<{ readonly runId: string }>, replies: readonly AssetsReply[]): Promise<void> {
    for (const reply of replies) {
      const meta = replyMetaFor(command, { id: reply.id, source: ASSETS_SOURCE, subject: command.data.runId });
      switch (reply.type) {
        case 'ProblemRegistered':
          await this.publisher.publish(ProblemRegistered, reply.data, meta);
          break;
        case 'AssetVersionCreated':
          await this.publisher.publish(AssetVersionCreated, reply.data, meta);
          break;
        case 'VideoRendered':
          await this.publisher.publish(VideoRendered, reply.data, meta);
          break;
        case 'VideoRenderFailed':
          await this.publisher.publish(VideoRenderFailed, reply.data, meta);
          break;
      }
    }
  }
}
