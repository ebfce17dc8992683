import type { BlobStore } from '@openpaw/providers';
import { z } from 'zod';
import { keyToken } from '../memory/kv-keys.js';

/** One person taken down: never searched for, recognised, kept as evidence or shown again. */
export interface TakedownRecord {
  /** The recogniser whose id this is (`CelebrityRecognizer.provider`): another recogniser's ids are other people. */
  readonly recognizer: string;
  readonly celebrityId: string;
  /** As the request named them, for the audit; matching is by id. */
  readonly name?: string;
  readonly reason: string;
  readonly requestedBy: string;
  /** ISO 8601. */
  readonly at: string;
}

const takedownRecord = z.object({
  recognizer: z.string().min(1),
  celebrityId: z.string().min(1),
  name: z.string().optional(),
  reason: z.string(),
  requestedBy: z.string(),
  at: z.string(),
});

/** Where the takedowns live: in the blob store every replica shares, with no expiry (a takedown stays). */
const TAKEDOWN_PREFIX = 'visual-takedowns/';
const recognizerPrefix = (recognizer: string): string => `${TAKEDOWN_PREFIX}${keyToken(recognizer)}/`;
export const takedownKey = (recognizer: string, celebrityId: string): string => `${recognizerPrefix(recognizer)}${keyToken(celebrityId)}.json`;

/** How long a replica believes the list it read: a takedown made elsewhere reaches every step within this. */
export const DEFAULT_TAKEDOWN_REFRESH_MS = 30_000;

/**
 * The people taken down, per recogniser, kept in the shared blob store. Each step asks for the set; a
 * replica re-reads it at most every `refreshMs` (a takedown it records itself counts at once).
 */
export class TakedownList {
  private readonly read = new Map<string, { readonly ids: Set<string>; readonly at: number }>();

  constructor(
    private readonly blobs: BlobStore,
    private readonly options: { readonly refreshMs?: number; readonly now?: () => number } = {},
  ) {}

  async add(record: TakedownRecord): Promise<void> {
    await this.blobs.put(takedownKey(record.recognizer, record.celebrityId), JSON.stringify(takedownRecord.parse(record)), { contentType: 'application/json' });
    this.read.get(record.recognizer)?.ids.add(record.celebrityId);
  }

  /** The celebrity ids taken down for this recogniser. */
  async ids(recognizer: string): Promise<ReadonlySet<string>> {
    const now = (this.options.now ?? Date.now)();
    const known = this.read.get(recognizer);
    if (known !== undefined && now - known.at < (this.options.refreshMs ?? DEFAULT_TAKEDOWN_REFRESH_MS)) return known.ids;
    const ids = new Set<string>();
    for (const record of await this.records(recognizer)) ids.add(record.celebrityId);
    this.read.set(recognizer, { ids, at: now });
    return ids;
  }

  /** Every takedown recorded for this recogniser (an unreadable record is skipped, never fatal). */
  async records(recognizer: string): Promise<TakedownRecord[]> {
    const records: TakedownRecord[] = [];
    let pageToken: string | undefined;
    do {
      const page = await this.blobs.list({ prefix: recognizerPrefix(recognizer), pageSize: 1000, ...(pageToken === undefined ? {} : { pageToken }) });
      for (const item of page.items) {
        const parsed = takedownRecord.safeParse(parseJson((await this.blobs.get(item.key)).body.toString('utf8')));
        if (parsed.success) records.push(dropUndefined(parsed.data));
      }
      pageToken = page.nextPageToken;
    } while (pageToken !== undefined);
    return records;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const dropUndefined = ({ name, ...rest }: z.infer<typeof takedownRecord>): TakedownRecord => (name === undefined ? rest : { ...rest, name });
