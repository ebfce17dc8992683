import { Column, Entity, Index, PrimaryColumn, Unique } from 'typeorm';
import type { Provenance } from '../ports.js';

/** A problem, known by its signature (schema `assets`). */
@Entity({ name: 'problems' })
export class ProblemEntity {
  @PrimaryColumn('uuid')
  id!: string;

  /** `text:<sha256 of the normalised text>` or `image:<sha256 of the normalised image>`. */
  @Column('text', { name: 'signature_key', unique: true })
  signatureKey!: string;

  @Column('text', { name: 'normalized_text' })
  normalizedText!: string;

  @Column('text', { name: 'text_sha256' })
  textSha256!: string;

  @Column('text', { name: 'image_sha256', nullable: true })
  imageSha256!: string | null;

  @Column('text', { nullable: true })
  phash!: string | null;

  @Column('text', { name: 'phash_version', nullable: true })
  phashVersion!: string | null;

  /** The topic subject (algebra, geometry, ...). */
  @Column('text')
  subject!: string;

  @Column('jsonb')
  keywords!: string[];

  @Column('uuid', { name: 'created_by_run_id' })
  createdByRunId!: string;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;
}

/** One version of one asset of a problem: a solution's HTML or a video of it. */
@Entity({ name: 'asset_versions' })
@Unique('asset_versions_problem_type_version', ['problemId', 'assetType', 'version'])
@Unique('asset_versions_run_type', ['sourceRunId', 'assetType'])
@Index('asset_versions_parent', ['parentAssetVersionId'])
export class AssetVersionEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'problem_id' })
  problemId!: string;

  @Column('text', { name: 'asset_type' })
  assetType!: 'solution_html' | 'video';

  /** 1, 2, ... per problem and asset type. */
  @Column('integer')
  version!: number;

  @Column('text', { name: 'storage_key' })
  storageKey!: string;

  @Column('text', { name: 'content_type' })
  contentType!: string;

  @Column('text', { name: 'content_sha256' })
  contentSha256!: string;

  /** Flat facts of how it was made (model, prompt version, cost; renderer, encoder, duration). */
  @Column('jsonb')
  provenance!: Provenance;

  /** The workflow run that produced it; one version per run and type. */
  @Column('uuid', { name: 'source_run_id' })
  sourceRunId!: string;

  /** A video's solution version. */
  @Column('uuid', { name: 'parent_asset_version_id', nullable: true })
  parentAssetVersionId!: string | null;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;
}
