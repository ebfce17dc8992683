import { Inject, Injectable } from '@nestjs/common';
import { ArtifactGenerated, ArtifactStepFailed, type GenerateArtifact, type MessageData } from '@openpaw/contracts';
import { StructuredOutputError } from '@openpaw/providers';
import { type Reply, replyTo } from '@openpaw/messaging';
import { ArtifactAgent } from '../../domain/agent/artifact-agent.js';
import { schemaErrorOf } from '../../domain/validation/validators.js';
import { llmFailureOf } from '../llm-failure.js';

export interface GenerateArtifactCommand {
  readonly commandId: string;
  readonly data: MessageData<typeof GenerateArtifact>;
}

/**
 * GenerateArtifact (phase 2): `ArtifactAgent.generateFromPlan()` with the job's plan and snapshot
 * chunks only; on the retry the validator's complaint is fed back to the model. Output that misses
 * the schema (after the client's re-ask) is answered as `invalid_output` in the validators' words, so
 * the coordinator retries it like any validation failure.
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
        replyTo(command.commandId, ArtifactGenerated, {
          runId: data.runId,
          commandId: command.commandId,
          generation: data.generation,
          result: generated.result,
          itemCount: generated.itemCount,
          model: generated.model,
        }),
      ];
    } catch (error) {
      if (error instanceof StructuredOutputError) {
        const reason = schemaErrorOf(data.artifactType, error.rawText, error.issues);
        return [replyTo(command.commandId, ArtifactStepFailed, { runId: data.runId, commandId: command.commandId, step: 'generating', errorCode: 'invalid_output', error: reason })];
      }
      const failure = llmFailureOf(error);
      if (failure === undefined) throw error;
      return [replyTo(command.commandId, ArtifactStepFailed, { runId: data.runId, commandId: command.commandId, step: 'generating', ...failure })];
    }
  }
}
