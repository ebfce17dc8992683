import { DecideCheckpointHandler } from './decide/decide-checkpoint.handler.js';
import { PaperSearchesController } from './paper-searches.controller.js';
import { StartPaperSearchHandler } from './start/start-paper-search.handler.js';

/**
 * Spec 04 in the gateway: `POST /paper-searches`, `GET /paper-searches/:id`, checkpoint decisions and
 * collection exports. Registered in `GatewayModule` itself (not a module of its own), because starting
 * a search goes through the gateway's one `AdmissionControl` (its token buckets are per process).
 */
export const PAPER_SEARCHES_CONTROLLERS = [PaperSearchesController];
export const PAPER_SEARCHES_PROVIDERS = [StartPaperSearchHandler, DecideCheckpointHandler];
