import { Inject, Injectable } from '@nestjs/common';
import { AssetVersionCreated, type MessageData, ProblemRegistered, type RegisterSolution } from '@openpaw/contracts';
import { type Reply, replyTo } from '@openpaw/messaging';
import { ASSET_REGISTRY, type AssetRegistry, type RegisteredSolution } from '../../ports.js';
import { SOLUTION_HTML_CONTENT_TYPE } from '../../registry/registry-rules.js';

export interface RegisterSolutionCommand {
  /** The command's envelope id: reply ids derive from it, and it keys the stored replies. */
  readonly commandId: string;
  readonly data: MessageData<typeof RegisterSolution>;
}

/**
 * RegisterSolution: in one transaction, get-or-create the problem by signature and add the run's
 * solution_html asset version (the problem's next version number); answer ProblemRegistered and
 * AssetVersionCreated. A redelivered command creates nothing and gets the same replies (same ids);
 * so does another command of the same run (a run has one solution version).
 */
@Injectable()
export class RegisterSolutionHandler {
  constructor(@Inject(ASSET_REGISTRY) private readonly registry: AssetRegistry) {}

  async execute(command: RegisterSolutionCommand): Promise<readonly Reply[]> {
    const stored = await this.registry.repliesTo(command.commandId);
    if (stored !== undefined) return stored;
    const { data, commandId } = command;
    return this.registry.registerSolution(
      commandId,
      {
        runId: data.runId,
        signature: data.signature,
        storageKey: data.storageKey,
        contentType: SOLUTION_HTML_CONTENT_TYPE,
        contentSha256: data.contentSha256,
        provenance: data.provenance,
      },
      (registered) => registrationReplies(command, registered),
    );
  }
}

function registrationReplies(command: RegisterSolutionCommand, { problem, version }: RegisteredSolution): Reply[] {
  const { runId } = command.data;
  return [
    // Created by this run, whichever of its deliveries did it: the same answer every time.
    replyTo(command.commandId, ProblemRegistered, { runId, commandId: command.commandId, problemId: problem.id, created: problem.createdByRunId === runId }),
    replyTo(command.commandId, AssetVersionCreated, {
      runId,
      commandId: command.commandId,
      problemId: version.problemId,
      assetVersionId: version.id,
      assetType: version.assetType,
      version: version.version,
      storageKey: version.storageKey,
      contentType: version.contentType,
    }),
  ];
}
