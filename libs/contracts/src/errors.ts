/**
 * The base of OpenPaw's own errors. `code` is stable and machine-readable (snake_case): callers and
 * the gateway's error mapping branch on it, never on the class or the message, so an error can move
 * between packages, or be wrapped, without its handling changing. Changing a code is an API change.
 */
export abstract class OpenPawError extends Error {
  abstract readonly code: string;
}

/** Whether `error` is an OpenPaw error with `code` (of any class, from any package). */
export function hasErrorCode<C extends string>(error: unknown, code: C): error is OpenPawError & { readonly code: C } {
  return error instanceof OpenPawError && error.code === code;
}
