import { PgKeptReplyStore, type Reply } from '@openpaw/messaging';
import type { DataSource, EntityManager } from 'typeorm';
import { ASSETS_SCHEMA } from '../config.js';
import type {
  AssetRegistry,
  AssetType,
  AssetVersionRecord,
  NewSolutionVersion,
  NewVideoVersion,
  ProblemRecord,
  RegisteredSolution,
} from '../ports.js';
import { assetVersionIdFor, nextVersion, problemIdFor, signatureKeyOf } from '../registry/registry-rules.js';
import { AssetVersionEntity, ProblemEntity } from './entities.js';

/** `AssetRegistry` over PostgreSQL (schema `assets`); the replies are kept in `command_replies`, in the registration's transaction. */
export class PgAssetRegistry implements AssetRegistry {
  private readonly replies: PgKeptReplyStore;

  constructor(private readonly dataSource: DataSource) {
    this.replies = new PgKeptReplyStore(dataSource, ASSETS_SCHEMA);
  }

  repliesTo(commandId: string): Promise<readonly Reply[] | undefined> {
    return this.replies.find(commandId);
  }

  registerSolution(
    commandId: string,
    input: NewSolutionVersion,
    replies: (registered: RegisteredSolution) => readonly Reply[],
  ): Promise<readonly Reply[]> {
    return this.dataSource.transaction(async (manager) => {
      const kept = this.replies.within(manager);
      const stored = await kept.find(commandId);
      if (stored !== undefined) return stored;

      const signatureKey = signatureKeyOf(input.signature);
      const { signature } = input;
      // Get-or-create: the id follows from the signature, so racing creators insert the same row.
      await manager
        .createQueryBuilder()
        .insert()
        .into(ProblemEntity)
        .values({
          id: problemIdFor(signatureKey),
          signatureKey,
          normalizedText: signature.normalizedText,
          textSha256: signature.textSha256,
          imageSha256: signature.imageSha256 ?? null,
          phash: signature.phash ?? null,
          phashVersion: signature.phashVersion ?? null,
          subject: signature.topicTags.subject,
          keywords: [...signature.topicTags.keywords],
          createdByRunId: input.runId,
          createdAt: new Date(),
        })
        .orIgnore()
        .execute();
      // The problem's row lock serialises version numbering of its assets.
      const problem = await manager
        .getRepository(ProblemEntity)
        .createQueryBuilder('p')
        .setLock('pessimistic_write')
        .where('p.signature_key = :signatureKey', { signatureKey })
        .getOneOrFail();

      let version = await manager.getRepository(AssetVersionEntity).findOneBy({ sourceRunId: input.runId, assetType: 'solution_html' });
      if (version !== null && version.problemId !== problem.id) {
        throw new Error(`run ${input.runId} already registered its solution for problem ${version.problemId}, not ${problem.id}`);
      }
      version ??= await insertVersion(manager, {
        id: assetVersionIdFor(input.runId, 'solution_html'),
        problemId: problem.id,
        assetType: 'solution_html',
        storageKey: input.storageKey,
        contentType: input.contentType,
        contentSha256: input.contentSha256,
        provenance: { ...input.provenance },
        sourceRunId: input.runId,
        parentAssetVersionId: null,
      });
      return kept.keep(commandId, replies({ problem: toProblemRecord(problem), version: toRecord(version) }));
    });
  }

  registerVideo(commandId: string, input: NewVideoVersion, replies: (version: AssetVersionRecord) => readonly Reply[]): Promise<readonly Reply[]> {
    return this.dataSource.transaction(async (manager) => {
      const kept = this.replies.within(manager);
      const stored = await kept.find(commandId);
      if (stored !== undefined) return stored;
      await manager
        .getRepository(ProblemEntity)
        .createQueryBuilder('p')
        .setLock('pessimistic_write')
        .where('p.id = :id', { id: input.solution.problemId })
        .getOneOrFail();
      const version =
        (await manager.getRepository(AssetVersionEntity).findOneBy({ sourceRunId: input.runId, assetType: 'video' })) ??
        (await insertVersion(manager, {
          id: assetVersionIdFor(input.runId, 'video'),
          problemId: input.solution.problemId,
          assetType: 'video',
          storageKey: input.storageKey,
          contentType: input.contentType,
          contentSha256: input.contentSha256,
          provenance: { ...input.provenance },
          sourceRunId: input.runId,
          parentAssetVersionId: input.solution.id,
        }));
      return kept.keep(commandId, replies(toRecord(version)));
    });
  }

  saveReplies(commandId: string, replies: readonly Reply[]): Promise<readonly Reply[]> {
    return this.replies.keep(commandId, replies);
  }

  async findAssetVersion(id: string): Promise<AssetVersionRecord | undefined> {
    const row = await this.dataSource.getRepository(AssetVersionEntity).findOneBy({ id });
    return row === null ? undefined : toRecord(row);
  }

  async findRunAsset(runId: string, assetType: AssetType): Promise<AssetVersionRecord | undefined> {
    const row = await this.dataSource.getRepository(AssetVersionEntity).findOneBy({ sourceRunId: runId, assetType });
    return row === null ? undefined : toRecord(row);
  }
}

/** Inserts the next version of the asset type for the problem (the caller holds the problem's row lock). */
async function insertVersion(manager: EntityManager, fields: Omit<AssetVersionEntity, 'version' | 'createdAt'>): Promise<AssetVersionEntity> {
  const latest = await manager
    .getRepository(AssetVersionEntity)
    .createQueryBuilder('v')
    .select('max(v.version)', 'latest')
    .where('v.problem_id = :problemId and v.asset_type = :assetType', { problemId: fields.problemId, assetType: fields.assetType })
    .getRawOne<{ latest: number | null }>();
  const entity = manager.getRepository(AssetVersionEntity).create({ ...fields, version: nextVersion(latest?.latest), createdAt: new Date() });
  await manager.getRepository(AssetVersionEntity).insert(entity);
  return entity;
}

function toProblemRecord(row: ProblemEntity): ProblemRecord {
  return { id: row.id, signatureKey: row.signatureKey, createdByRunId: row.createdByRunId };
}

function toRecord(row: AssetVersionEntity): AssetVersionRecord {
  return {
    id: row.id,
    problemId: row.problemId,
    assetType: row.assetType,
    version: row.version,
    storageKey: row.storageKey,
    contentType: row.contentType,
    contentSha256: row.contentSha256,
    provenance: row.provenance,
    sourceRunId: row.sourceRunId,
    parentAssetVersionId: row.parentAssetVersionId,
    createdAt: row.createdAt,
  };
}
