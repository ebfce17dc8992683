import { Inject, Injectable } from '@nestjs/common';
import { type Envelope, type MessageData, RegisterSolution, RenderPriorityVideo, RenderVideo } from '@openpaw/contracts';
import { type HandlerOutcome, MESSAGE_PUBLISHER, type MessagePublisher, OnMessage, publishReplies, type Reply } from '@openpaw/messaging';
import { RegisterSolutionHandler } from '../handlers/register-solution/register-solution.handler.js';
import { RenderVideoHandler } from '../handlers/render-video/render-video.handler.js';

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
    return this.answer(envelope, await this.registerSolution.execute({ commandId: envelope.id, data: envelope.data }));
  }

  @OnMessage(RenderVideo)
  async onRenderVideo(envelope: Envelope<MessageData<typeof RenderVideo>>): Promise<HandlerOutcome> {
    return this.answer(envelope, await this.renderVideo.execute({ commandId: envelope.id, data: envelope.data }));
  }

  /** The same render, consumed on the priority lane (`video_generation: sync`). */
  @OnMessage(RenderPriorityVideo)
  async onRenderPriorityVideo(envelope: Envelope<MessageData<typeof RenderPriorityVideo>>): Promise<HandlerOutcome> {
    return this.onRenderVideo(envelope);
  }

  private async answer(command: Envelope<{ readonly runId: string }>, replies: readonly Reply[]): Promise<HandlerOutcome> {
    await publishReplies(this.publisher, command, replies, { source: ASSETS_SOURCE, subject: command.data.runId });
    return { kind: 'ack' };
  }
}
