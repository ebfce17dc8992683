import { Inject, Injectable } from '@nestjs/common';
import { ArtifactValidated, type MessageData, type ValidateArtifact } from '@openpaw/contracts';
import type { ArtifactsSettings } from '../../config.js';
import { injectedValidationFault } from '../../domain/validation/fault-injection.js';
import { validateArtifact } from '../../domain/validation/validators.js';
import { ARTIFACTS_SETTINGS, reply, type Reply } from '../../ports.js';

export interface ValidateArtifactCommand {
  readonly commandId: string;
  readonly data: MessageData<typeof ValidateArtifact>;
}

/** ValidateArtifact (phase 3): the type's validator, against the snapshot's chunk ids. */
@Injectable()
export class ValidateArtifactHandler {
  constructor(@Inject(ARTIFACTS_SETTINGS) private readonly settings: ArtifactsSettings) {}

  execute(command: ValidateArtifactCommand): Promise<readonly Reply[]> {
    const { data } = command;
    const report = validateArtifact(
      data.artifactType,
      data.result,
      data.options,
      data.chunks.map((c) => c.chunk_id),
    );
    const fault = injectedValidationFault(this.settings.faultInjection, data.chunks, data.generation);
    const errors = fault === undefined ? [...report.errors] : [fault, ...report.errors];
    return Promise.resolve([
      reply(ArtifactValidated, {
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
