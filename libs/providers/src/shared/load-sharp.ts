import type sharpModule from 'sharp';

/** sharp's image function, as its module's default export gives it. */
export type SharpFunction = typeof sharpModule;

let loading: Promise<SharpFunction> | undefined;

/**
 * sharp (libvips and its codecs, ~25 MB resident), loaded by the first image a process handles rather
 * than by every service that imports `@openpaw/providers`: most of them never touch an image (issue 23,
 * ADR 0039). Later calls share the first load.
 */
export function loadSharp(): Promise<SharpFunction> {
  loading ??= import('sharp').then((loaded) => loaded.default);
  return loading;
}
