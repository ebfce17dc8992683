// Citation.js ships no type declarations: these describe the part of its public plugin API the
// library import and the export checks call (https://citation.js.org/api/0.7/).
declare module '@citation-js/core' {
  interface ChainOptions {
    /** The input format to read the data as, instead of detecting it. */
    readonly forceType?: string;
    /** The format to stop at (`@csl/list+object` is CSL-JSON). */
    readonly target?: string;
    /** Whether to record the conversion path on each item (`_graph`). */
    readonly generateGraph?: boolean;
  }
  export const plugins: {
    readonly input: {
      /** One conversion step by a named format's parser: a file's text into its format's records (no guessing). */
      data(input: unknown, type: string): unknown;
      /** Every step, to `options.target`. */
      chain(input: unknown, options?: ChainOptions): unknown;
    };
  };
  export class Cite {
    constructor(data: unknown, options?: ChainOptions);
    format(format: 'bibliography', options?: { readonly format?: 'text' | 'html'; readonly template?: string; readonly lang?: string }): string;
  }
}
declare module '@citation-js/plugin-bibtex';
declare module '@citation-js/plugin-ris';
declare module '@citation-js/plugin-csl';
