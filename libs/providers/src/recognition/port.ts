/** Where a face is, as fractions of the image's width and height (Rekognition's convention). */
export interface FaceBox {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

export interface RecognizedCelebrity {
  /** The recogniser's stable identity: persons are keyed by it, never by name. */
  readonly celebrityId: string;
  readonly name: string;
  /** 0–100: how sure the recogniser is that this face is this celebrity. */
  readonly matchConfidence: number;
  readonly box: FaceBox;
  readonly urls: readonly string[];
}

export interface RecognitionResult {
  /** e.g. `aws/rekognition`, `local/glyph-recognizer`. */
  readonly provider: string;
  readonly local: boolean;
  /** Largest faces first. */
  readonly celebrities: readonly RecognizedCelebrity[];
  /** Faces found but not matched to anyone. */
  readonly unrecognizedFaces: number;
}

/** Celebrity recognition over image bytes (JPEG or PNG, at most 5 MB). Adapters throw only `ProviderError`. */
export interface CelebrityRecognizer {
  readonly provider: string;
  readonly local: boolean;
  recognize(image: Uint8Array, options?: { readonly signal?: AbortSignal }): Promise<RecognitionResult>;
}

/** Orders faces largest first (then left to right, so equal sizes keep a stable order). */
export function largestFirst<T extends { readonly box: FaceBox }>(faces: readonly T[]): T[] {
  return [...faces].sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height || a.box.left - b.box.left);
}
