import { Inject, Injectable } from '@nestjs/common';
import type { BlobStore } from '@openpaw/providers/blob';
import { BLOB_STORE } from '../assets/blobs/blob-store.provider.js';
import { runWithWholePapers } from '../paper-searches/export/collection-export.js';
import type { RunProjection } from '../projection/run-projection.store.js';
import { type RunResource, toRunResource } from './runs.schemas.js';

/**
 * Runs as clients see them, from every generic run route (one run, the list, the event stream): the
 * public view, with a paper search's collections read whole from the stored lists (a message, and so
 * the projection, carries only as many papers as fit).
 */
@Injectable()
export class RunResources {
  constructor(@Inject(BLOB_STORE) private readonly blobs: Pick<BlobStore, 'get'>) {}

  async of(run: RunProjection): Promise<RunResource> {
    return toRunResource(await runWithWholePapers(run, this.blobs));
  }
}
