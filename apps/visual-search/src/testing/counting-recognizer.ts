import type { CelebrityRecognizer, RecognitionResult } from '@openpaw/providers';

/** Passes recognition through to the real recogniser and counts the calls (a spy, not a mock). */
export function countingRecognizer(inner: CelebrityRecognizer): CelebrityRecognizer & { readonly calls: () => number } {
  let calls = 0;
  return {
    provider: inner.provider,
    local: inner.local,
    calls: () => calls,
    recognize(image: Uint8Array, options?: { readonly signal?: AbortSignal }): Promise<RecognitionResult> {
      calls += 1;
      return inner.recognize(image, options);
    },
  };
}
