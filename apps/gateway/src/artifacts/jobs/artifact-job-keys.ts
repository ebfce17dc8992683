import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { GATEWAY_DATA_SOURCE } from '../../projection/database.js';
import { GATEWAY_SCHEMA } from '../../projection/run-projection.entity.js';

/** What a (user, `Idempotency-Key`) of `POST /ai/chat` named: its job, and the request it was sent with. */
export interface ArtifactJobKey {
  readonly jobId: string;
  /** The job's place in its fingerprint's sequence (its run id derives from both). */
  readonly sequence: number;
  /** `artifactRequestDigest` of the request that first used the key. */
  readonly requestDigest: string;
  /** The `StartRun` input of a job this key started (sent again when it never reached the projection); absent when the key met an active job. */
  readonly startInput?: Record<string, unknown>;
}

interface KeyRow {
  job_id: string;
  sequence: number;
  request_digest: string;
  start_input: Record<string, unknown> | null;
}

const TABLE = `"${GATEWAY_SCHEMA}"."artifact_job_keys"`;

const toKey = (row: KeyRow): ArtifactJobKey => ({
  jobId: row.job_id,
  sequence: row.sequence,
  requestDigest: row.request_digest,
  ...(row.start_input === null ? {} : { startInput: row.start_input }),
});

/**
 * The request as a key compares it: its fingerprint (user, notebook, type, sorted sources, options)
 * and the message, the job's content. A key sent again with another request is refused.
 */
export function artifactRequestDigest(fingerprint: string, content: string): string {
  return createHash('sha256').update(JSON.stringify([fingerprint, content])).digest('hex');
}

/** The gateway's `artifact_job_keys` table: the job each (user, Idempotency-Key) of `POST /ai/chat` named. */
@Injectable()
export class ArtifactJobKeys {
  constructor(@Inject(GATEWAY_DATA_SOURCE) private readonly dataSource: Pick<DataSource, 'query'>) {}

  async find(userId: string, idempotencyKey: string): Promise<ArtifactJobKey | undefined> {
    const [row] = await this.dataSource.query<KeyRow[]>(
      `select job_id, sequence, request_digest, start_input from ${TABLE} where user_id = $1 and idempotency_key = $2`,
      [userId, idempotencyKey],
    );
    return row === undefined ? undefined : toKey(row);
  }

  /**
   * Records what the key names unless it names something already: the record that stands, this one or
   * an earlier one (two requests with one key at once: the first to commit wins, the other follows it).
   */
  async claim(userId: string, idempotencyKey: string, key: ArtifactJobKey): Promise<ArtifactJobKey> {
    const [inserted] = await this.dataSource.query<KeyRow[]>(
      `insert into ${TABLE} (user_id, idempotency_key, job_id, sequence, request_digest, start_input) values ($1, $2, $3, $4, $5, $6::jsonb)
       on conflict (user_id, idempotency_key) do nothing returning job_id, sequence, request_digest, start_input`,
      [userId, idempotencyKey, key.jobId, key.sequence, key.requestDigest, key.startInput === undefined ? null : JSON.stringify(key.startInput)],
    );
    if (inserted !== undefined) return toKey(inserted);
    const standing = await this.find(userId, idempotencyKey);
    if (standing === undefined) throw new Error(`the artifact job key of ${userId} was neither inserted nor found`);
    return standing;
  }
}
