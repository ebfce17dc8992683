import { DecideCheckpointHandler } from './decide/decide-checkpoint.handler.js';
import { ImportLibraryHandler } from './library/import-library.handler.js';
import { LibraryController } from './library/library.controller.js';
import { LibraryReplies } from './library/library-replies.js';
import { PaperSearchesController } from './paper-searches.controller.js';
import { StartPaperSearchHandler } from './start/start-paper-search.handler.js';

/**
 * Spec 04 in the gateway: `POST /paper-searches`, `GET /paper-searches/:id`, checkpoint decisions and
 * collection exports; `POST /library/references` (the `library` source). Registered in `GatewayModule` itself (not a module of its own), because starting
 * a search goes through the gateway's one `AdmissionControl` (its token buckets are per process).
 */
export const PAPER_SEARCHES_CONTROLLERS = [PaperSearchesController, LibraryController];
export const PAPER_SEARCHES_PROVIDERS = [StartPaperSearchHandler, DecideCheckpointHandler, LibraryReplies, ImportLibraryHandler];
