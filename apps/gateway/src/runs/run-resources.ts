import { Injectable } from '@nestjs/common';
import { runWithWholePapers } from '../paper-searches/export/collection-export.js';
import { StoredPaperLists } from '../paper-searches/export/stored-paper-lists.js';
import type { RunProjection } from '../projection/run-projection.store.js';
import { type RunResource, toRunResource } from './runs.schemas.js';

/**
 * Runs as clients see them, from every generic run route (one run, the list, the event stream): the
 * public view, with a paper search's collections read whole from the stored lists (a message, and so
 * the projection, carries only as many papers as fit), each list read once for them all.
 */
@Injectable()
export class RunResources {
  constructor(private readonly lists: StoredPaperLists) {}

  async of(run: RunProjection): Promise<RunResource> {
    return toRunResource(await runWithWholePapers(run, this.lists));
  }
}
