import { Inject, Injectable } from '@nestjs/common';
import { ArtifactPlanned, ArtifactStepFailed, type MessageData, type PlanArtifact } from '@openpaw/contracts';
import { type Reply, replyTo } from '@openpaw/messaging';
import { ArtifactAgent } from '../../domain/agent/artifact-agent.js';
import { llmFailureOf } from '../llm-failure.js';

export interface PlanArtifactCommand {
  readonly commandId: string;
  readonly data: MessageData<typeof PlanArtifact>;
}

/**
 * PlanArtifact (phase 1): `ArtifactAgent.plan()` over the snapshot's chunks, or, on a retry, the plan
 * stored with the job as it is (no LLM call: the plan is reused, not recomputed).
 */
@Injectable()
export class PlanArtifactHandler {
  constructor(@Inject(ArtifactAgent) private readonly agent: ArtifactAgent) {}

  async execute(command: PlanArtifactCommand): Promise<readonly Reply[]> {
    const { data } = command;
    const planned = (plan: MessageData<typeof ArtifactPlanned>['plan'], reused: boolean): Reply[] => [
      replyTo(command.commandId, ArtifactPlanned, { runId: data.runId, commandId: command.commandId, plan, reused, chunksLoaded: data.chunks.length }),
    ];
    if (data.storedPlan !== null) return planned(data.storedPlan, true);
    try {
      return planned(await this.agent.plan(data.artifactType, data.content, data.options, data.chunks), false);
    } catch (error) {
      const failure = llmFailureOf(error);
      if (failure === undefined) throw error;
      return [replyTo(command.commandId, ArtifactStepFailed, { runId: data.runId, commandId: command.commandId, step: 'planning', ...failure })];
    }
  }
}
