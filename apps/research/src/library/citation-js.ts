import { createRequire } from 'node:module';
import type * as CitationJs from '@citation-js/core';
import { z } from 'zod';

let citationJs: typeof CitationJs | undefined;

/**
 * Citation.js with its BibTeX and RIS plugins, loaded on first use: it costs a process that loads it
 * ~30 MB (RSS measured on import), which only a library import needs.
 */
function inputPlugins(): (typeof CitationJs)['plugins']['input'] {
  if (citationJs === undefined) {
    const require = createRequire(import.meta.url);
    const core = require('@citation-js/core') as typeof CitationJs;
    require('@citation-js/plugin-bibtex');
    require('@citation-js/plugin-ris');
    citationJs = core;
  }
  return citationJs.plugins.input;
}

// Citation.js (maintained, MIT) reads BibTeX and RIS. Its outputs are checked against these shapes,
// so a change in a later version fails loudly here rather than importing empty references.

const cslName = z.looseObject({
  family: z.string().optional(),
  given: z.string().optional(),
  literal: z.string().optional(),
  suffix: z.string().optional(),
  'non-dropping-particle': z.string().optional(),
  'dropping-particle': z.string().optional(),
});
const cslText = z.union([z.string(), z.number()]).transform(String).optional();

/** The CSL-JSON fields the library import reads from Citation.js's conversion. */
const cslItem = z.looseObject({
  type: z.string().optional(),
  title: cslText,
  author: z.array(cslName).optional(),
  editor: z.array(cslName).optional(),
  issued: z.looseObject({ 'date-parts': z.array(z.array(z.union([z.number(), z.string()]))).optional() }).optional(),
  'container-title': cslText,
  'event-title': cslText,
  publisher: cslText,
  abstract: cslText,
  DOI: cslText,
  URL: cslText,
  PMID: cslText,
  keyword: cslText,
});
export type CslName = z.infer<typeof cslName>;
export type CslData = z.infer<typeof cslItem>;

const bibtexEntries = z.array(
  z.object({
    type: z.string(),
    label: z.string(),
    // Field names lower-cased, `@string` macros and months expanded, braces kept (LaTeX not yet decoded).
    properties: z.record(z.string(), z.union([z.string(), z.number()]).transform(String)),
  }),
);
export type RawBibtexEntry = z.infer<typeof bibtexEntries>[number];

/**
 * A BibTeX file's entries as written (throws a SyntaxError naming what the parser expected on a
 * malformed file). The BibTeX parser is called by its format name: `chainLink` ignores `forceType`
 * and guesses the format, and a text whose entries all fail its guess (`@article{b title=…}`, a file of
 * `@string`s only) came back as "This format is not supported or recognized" instead of the parser's reason.
 */
export function readBibtexEntries(text: string): RawBibtexEntry[] {
  return bibtexEntries.parse(inputPlugins().data(text, '@biblatex/text'));
}

/** BibTeX entries as CSL-JSON: LaTeX decoded to Unicode, names split, dates read (BibLaTeX's mapping, a superset of BibTeX's). */
export function cslOfBibtexEntries(entries: readonly RawBibtexEntry[]): CslData[] {
  return z.array(cslItem).parse(inputPlugins().chain(entries, { forceType: '@biblatex/entries+list', target: '@csl/list+object', generateGraph: false }));
}

/** One RIS record (`{ TY, AU: [...], ... }`) as CSL-JSON, by the RIS specification's tag meanings per type. */
export function cslOfRisRecord(record: Readonly<Record<string, string | readonly string[]>>): CslData {
  const [item] = z.array(cslItem).length(1).parse(inputPlugins().chain(record, { forceType: '@ris/record', target: '@csl/list+object', generateGraph: false }));
  return item!;
}

/** CSL's rich-text markup (what `\\emph`, `\\textsc`, `^{}` and protective braces become), which a plain-text field does not keep. */
const CSL_MARKUP = /<\/?(?:i|b|sup|sub|sc)>|<span(?: (?:class|style)="[^"<>]*")?>|<\/span>/g;

/** A CSL string as plain text: rich-text markup dropped, white space collapsed; null when empty. */
export function plainText(value: string | undefined): string | null {
  const text = value?.replace(CSL_MARKUP, '').replace(/\s+/g, ' ').trim();
  return text === undefined || text === '' ? null : text;
}

/** A name as a reader writes it: "Petar Veličković", "Jan van der Berg", "Google Brain". */
export function displayNameOf(name: CslName): string {
  if (name.literal !== undefined) return plainText(name.literal) ?? '';
  return [name.given, name['dropping-particle'], name['non-dropping-particle'], name.family, name.suffix]
    .filter((part): part is string => part !== undefined && part.trim() !== '')
    .join(' ')
    .replace(CSL_MARKUP, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The year of a CSL date, when it has one. */
export function yearOf(item: CslData): number | null {
  const year = Number(item.issued?.['date-parts']?.[0]?.[0]);
  return Number.isInteger(year) && year >= 1500 && year < 3000 ? year : null;
}
