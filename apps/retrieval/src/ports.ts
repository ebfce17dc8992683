/** Injection tokens of the retrieval service's ports. */
export const RETRIEVAL_SETTINGS = Symbol('openpaw.retrieval.settings');
export const RETRIEVAL_EMBEDDER = Symbol('openpaw.retrieval.embedder');
/** The `retrieval` schema's kept replies (`KeptReplyStore` of `@openpaw/messaging`, table `command_replies`). */
export const RETRIEVAL_REPLIES = Symbol('openpaw.retrieval.replies');
