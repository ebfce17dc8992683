/** One image of a search result, in the provider's order (position 1 first). */
export interface ImageSearchHit {
  readonly position: number;
  /** The full-size image. */
  readonly imageUrl: string;
  /** The page the image was found on (the evidence card's source). */
  readonly sourcePageUrl?: string;
  readonly title?: string;
  readonly thumbnailUrl?: string;
  readonly width?: number;
  readonly height?: number;
}

export interface ImageSearchResult {
  /** e.g. `serpapi/google_images`, `brave/images`, `bing/images`, `local/visual-world`. */
  readonly provider: string;
  readonly local: boolean;
  readonly query: string;
  /** At most the requested limit, in the provider's order. */
  readonly hits: readonly ImageSearchHit[];
}

export interface ImageSearchOptions {
  /** How many images the caller wants (the spec takes the first 5). */
  readonly limit: number;
  readonly signal?: AbortSignal;
}

/** Text query in, image URLs out. Adapters throw only `ProviderError`. */
export interface ImageSearch {
  readonly provider: string;
  /** True for the offline local default (named as such in logs). */
  readonly local: boolean;
  search(query: string, options: ImageSearchOptions): Promise<ImageSearchResult>;
}
