import { Inject, Injectable } from '@nestjs/common';
import { ArtifactGenerated, ArtifactStepFailed, type GenerateArtifact, type MessageData } from '@openpaw/contracts';
import { ArtifactAgent } from '../../domain/agent/artifact-agent.js';
import { reply, type Reply } from '../../ports.js';
import { llmFailureOf } from '../llm-failure.js';

export interface GenerateArtifactCommand {
  readonly commandId: string;
  readonly data: MessageData<typeof GenerateArtifact>;
}

/**
 * GenerateArtifact (phase 2): `ArtifactAgent.generateFromPlan()` with the job's plan and snapshot
 * chunks only; on the retry the validator's complaint is fed back to the model.
 */
@Injectable()
export class GenerateArtifactHandler {
  constructor(@Inject(ArtifactAgent) private readonly agent: ArtifactAgent) {}

  async execute(command: GenerateArtifactCommand): Promise<readonly Reply[]> {
    const { data } = command;
    try {
      const generated = await this.agent.generateFromPlan(data.artifactType, data.content, data.options, data.plan, data.chunks, {
        generation: data.generation,
        previousError: data.previousError,
      });
      return [
        reply(ArtifactGenerated, {
          runId: data.runId,
          commandId: command.commandId,
          generation: data.generation,
          result: generated.result,
          itemCount: generated.itemCount,
          model: generated.model,
        }),
      ];
    } catch (error) {
      const failure = llmFailureOf(error);
      if (failure === undefined) throw error;
      return [reply(ArtifactStepFailed, { runId: data.runId, commandId: command.commandId, step: 'generating', ...failure })];
    }
  }
}
