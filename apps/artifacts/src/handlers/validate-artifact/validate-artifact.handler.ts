import { Injectable } from '@nestjs/common';
import { ArtifactValidated, type MessageData, type ValidateArtifact } from '@openpaw/contracts';
import { type Reply, replyTo } from '@openpaw/messaging';
import { validateArtifact } from '../../domain/validation/validators.js';

export interface ValidateArtifactCommand {
  readonly commandId: string;
  readonly data: MessageData<typeof ValidateArtifact>;
}

/** ValidateArtifact (phase 3): the type's validator, against the snapshot's chunk ids. */
@Injectable()
export class ValidateArtifactHandler {
  execute(command: ValidateArtifactCommand): Promise<readonly Reply[]> {
    const { data } = command;
    const report = validateArtifact(
      data.artifactType,
      data.result,
      data.options,
      data.chunks.map((c) => c.chunk_id),
    );
    const errors = [...report.errors];
    return Promise.resolve([
      replyTo(command.commandId, ArtifactValidated, {
        runId: data.runId,
        commandId: command.commandId,
        generation: data.generation,
        valid: errors.length === 0,
        error: errors[0] ?? null,
        errors,
      }),
    ]);
  }
}
