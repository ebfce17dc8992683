import { AssetVersionCreated, ProblemRegistered, VideoRendered, VideoRenderFailed } from '@openpaw/contracts';
import type { DataSource, EntityManager } from 'typeorm';
import { z } from 'zod';
import type {
  AssetRegistry,
  AssetsReply,
  AssetType,
  AssetVersionRecord,
  NewSolutionVersion,
  NewVideoVersion,
  ProblemRecord,
  RegisteredSolution,
} from '../ports.js';
import { assetVersionIdFor, nextVersion, problemIdFor, signatureKeyOf } from '../registry/registry-rules.js';
import { AssetVersionEntity, CommandReplyEntity, ProblemEntity } from './entities.js';

const storedRepliesSchema = z.array(
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('ProblemRegistered'), id: z.string(), data: ProblemRegistered.schema }),
    z.object({ type: z.literal('AssetVersionCreated'), id: z.string(), data: AssetVersionCreated.schema }),
    z.object({ type: z.literal('VideoRendered'), id: z.string(), data: VideoRendered.schema }),
    z.object({ type: z.literal('VideoRenderFailed'), id: z.string(), data: VideoRenderFailed.schema }),
  ]),
);

/** `AssetRegistry` over PostgreSQL (schema `assets`). */
export class PgAssetRegistry implements AssetRegistry {
  constructor(private readonly dataSource: DataSource) {}

  async repliesTo(commandId: string): Promise<readonly AssetsReply[] | undefined> {
    return storedReplies(this.dataSource.manager, commandId);
  }

  registerSolution(
    commandId: string,
    input: NewSolutionVersion,
    replies: (registered: RegisteredSolution) => readonly AssetsReply[],
  ): Promise<readonly AssetsReply[]> {
    return this.dataSource.transaction(async (manager) => {
      const stored = await storedReplies(manager, commandId);
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
      return saveRepliesIn(manager, commandId, replies({ problem: toProblemRecord(problem), version: toRecord(version) }));
    });
  }

  registerVideo(commandId: string, input: NewVideoVersion, replies: (version: AssetVersionRecord) => readonly AssetsReply[]): Promise<readonly AssetsReply[]> {
    return this.dataSource.transaction(async (manager) => {
      const stored = await storedReplies(manager, commandId);
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
      return saveRepliesIn(manager, commandId, replies(toRecord(version)));
    });
  }

  saveReplies(commandId: string, replies: readonly AssetsReply[]): Promise<readonly AssetsReply[]> {
    return this.dataSource.transaction((manager) => saveRepliesIn(manager, commandId, replies));
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

async function storedReplies(manager: EntityManager, commandId: string): Promise<readonly AssetsReply[] | undefined> {
  const row = await manager.getRepository(CommandReplyEntity).findOneBy({ commandId });
  return row === null ? undefined : storedRepliesSchema.parse(row.replies);
}

/** Stores the command's replies unless some are stored already; returns the stored ones. */
async function saveRepliesIn(manager: EntityManager, commandId: string, replies: readonly AssetsReply[]): Promise<readonly AssetsReply[]> {
  await manager
    .createQueryBuilder()
    .insert()
    .into(CommandReplyEntity)
    .values({ commandId, replies: storedRepliesSchema.parse(replies), createdAt: new Date() })
    .orIgnore()
    .execute();
  const stored = await storedReplies(manager, commandId);
  if (stored === undefined) throw new Error(`replies of command ${commandId} were not stored`);
  return stored;
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
