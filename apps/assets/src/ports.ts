import type { assetType, ProblemSignature, solutionProvenance, StepsDocument } from '@openpaw/contracts';
import type { Reply } from '@openpaw/messaging';
import type { z } from 'zod';

/** Injection tokens of the assets service's ports. */
export const ASSET_REGISTRY = Symbol('openpaw.assets.registry');
export const ASSETS_BLOBS = Symbol('openpaw.assets.blobs');
export const VIDEO_RENDERER = Symbol('openpaw.assets.videoRenderer');
export const ASSETS_SETTINGS = Symbol('openpaw.assets.settings');

export type AssetType = z.infer<typeof assetType>;
export type SolutionProvenance = z.infer<typeof solutionProvenance>;
/** Flat facts of how an asset was made, stored as jsonb. */
export type Provenance = Record<string, string | number | boolean | null>;

export interface ProblemRecord {
  readonly id: string;
  readonly signatureKey: string;
  /** The run whose registration created the problem. */
  readonly createdByRunId: string;
}

export interface AssetVersionRecord {
  readonly id: string;
  readonly problemId: string;
  readonly assetType: AssetType;
  readonly version: number;
  readonly storageKey: string;
  readonly contentType: string;
  readonly contentSha256: string;
  readonly provenance: Readonly<Provenance>;
  readonly sourceRunId: string;
  readonly parentAssetVersionId: string | null;
  readonly createdAt: Date;
}

export interface NewSolutionVersion {
  readonly runId: string;
  readonly signature: ProblemSignature;
  readonly storageKey: string;
  readonly contentType: string;
  readonly contentSha256: string;
  readonly provenance: SolutionProvenance;
}

export interface RegisteredSolution {
  readonly problem: ProblemRecord;
  readonly version: AssetVersionRecord;
}

export interface NewVideoVersion {
  readonly runId: string;
  readonly solution: AssetVersionRecord;
  readonly storageKey: string;
  readonly contentType: string;
  readonly contentSha256: string;
  readonly provenance: Readonly<Provenance>;
}

/**
 * The registry of problems and asset versions (schema `assets`). Each registration is one
 * transaction that also stores the command's replies, so a redelivered command gets the same replies
 * and creates nothing; a run has at most one version per asset type.
 */
export interface AssetRegistry {
  /** The replies stored for a command already handled. */
  repliesTo(commandId: string): Promise<readonly Reply[] | undefined>;
  /** Get-or-create the problem by signature, and the run's solution version (the next version number when new). */
  registerSolution(commandId: string, input: NewSolutionVersion, replies: (registered: RegisteredSolution) => readonly Reply[]): Promise<readonly Reply[]>;
  /** The run's video version (existing, or the next version number of the solution's problem). */
  registerVideo(commandId: string, input: NewVideoVersion, replies: (version: AssetVersionRecord) => readonly Reply[]): Promise<readonly Reply[]>;
  /** Stores replies that need no registration (a failure); the first stored for a command wins. */
  saveReplies(commandId: string, replies: readonly Reply[]): Promise<readonly Reply[]>;
  findAssetVersion(id: string): Promise<AssetVersionRecord | undefined>;
  findRunAsset(runId: string, assetType: AssetType): Promise<AssetVersionRecord | undefined>;
}

export interface RenderedVideo {
  readonly bytes: Buffer;
  readonly contentType: string;
  readonly durationMs: number;
  readonly frameCount: number;
  readonly width: number;
  readonly height: number;
  readonly fps: number;
  readonly encoder: string;
  /** Renderer name and version, for provenance. */
  readonly renderer: string;
}

/** Renders a solution's steps to a video. */
export interface VideoRenderer {
  /** `priority`: a render of the priority lane, served before queued background renders. */
  render(steps: StepsDocument, options?: { readonly priority?: boolean }): Promise<RenderedVideo>;
}
