import { type ExpressionSyntax, renderExpression, type SearchExpression, searchWords } from '@openpaw/providers';
import { paperIdOf } from '../paper-search/papers/paper-id.js';
import type { DataSource } from 'typeorm';
import type { LibraryReference } from '../library/reference.js';
import type { LibraryHit, LibraryQuery, LibraryStore } from '../ports.js';

interface HitRow {
  readonly reference_id: string;
  readonly citation_key: string;
  readonly entry_type: string;
  readonly title: string;
  readonly authors: string[];
  readonly year: number | null;
  readonly venue: string | null;
  readonly abstract: string | null;
  readonly doi: string | null;
  readonly arxiv_id: string | null;
  readonly pmid: string | null;
  readonly url: string | null;
  readonly keywords: string[];
  readonly rank: number;
  readonly total: string | number;
}

/**
 * `LibraryStore` over PostgreSQL (schema `research`): upserts keyed by (user, paper id), searched
 * with `to_tsquery('english', ...)` over the generated `search` tsvector, ranked by `ts_rank_cd`.
 */
export class PgLibraryStore implements LibraryStore {
  constructor(private readonly dataSource: DataSource) {}

  async upsert(userId: string, references: readonly LibraryReference[]): Promise<{ added: number; updated: number }> {
    let added = 0;
    let updated = 0;
    // One statement per reference in one transaction: a failed import leaves the library as it was.
    await this.dataSource.transaction(async (manager) => {
      for (const r of uniqueByPaper(references)) {
        const rows = await manager.query<{ inserted: boolean }[]>(
          `insert into library_references
             (user_id, reference_id, citation_key, entry_type, title, authors, authors_text, year, venue, abstract, doi, arxiv_id, pmid, url, keywords, keywords_text)
           values ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11, $12, $13, $14, $15::text[], $16)
           on conflict (user_id, reference_id) do update set
             citation_key = excluded.citation_key, entry_type = excluded.entry_type, title = excluded.title,
             authors = excluded.authors, authors_text = excluded.authors_text, year = excluded.year,
             venue = excluded.venue, abstract = coalesce(excluded.abstract, library_references.abstract),
             doi = coalesce(excluded.doi, library_references.doi), arxiv_id = coalesce(excluded.arxiv_id, library_references.arxiv_id),
             pmid = coalesce(excluded.pmid, library_references.pmid), url = coalesce(excluded.url, library_references.url),
             keywords = excluded.keywords, keywords_text = excluded.keywords_text, updated_at = now()
           returning (xmax = 0) as inserted`,
          [
            userId,
            paperIdOf(r),
            r.citationKey,
            r.entryType,
            r.title,
            JSON.stringify(r.authors),
            r.authors.join(' '),
            r.year,
            r.venue,
            r.abstract,
            r.doi,
            r.arxivId,
            r.pmid,
            r.url,
            r.keywords,
            r.keywords.join(' '),
          ],
        );
        if (rows[0]?.inserted === true) added += 1;
        else updated += 1;
      }
    });
    return { added, updated };
  }

  async isEmpty(userId: string): Promise<boolean> {
    const rows = await this.dataSource.query<{ present: boolean }[]>('select exists(select 1 from library_references where user_id = $1) as present', [userId]);
    return rows[0]?.present !== true;
  }

  async search(userId: string, query: LibraryQuery): Promise<{ hits: LibraryHit[]; total: number }> {
    const tsquery = query.expression !== undefined ? expressionTsquery(query.expression) : toTsquery(query.phrases);
    if (tsquery === null) return { hits: [], total: 0 };
    const rows = await this.dataSource.query<HitRow[]>(
      `select reference_id, citation_key, entry_type, title, authors, year, venue, abstract, doi, arxiv_id, pmid, url, keywords,
              ts_rank_cd(search, q, 32) as rank, count(*) over () as total
         from library_references, to_tsquery('english', $2) q
        where user_id = $1 and search @@ q
          and ($3::int is null or year >= $3) and ($4::int is null or year <= $4)
        order by rank desc, year desc nulls last, reference_id
        limit $5`,
      [userId, tsquery, query.yearFrom, query.yearTo, query.limit],
    );
    return {
      total: rows.length === 0 ? 0 : Number(rows[0]!.total),
      hits: rows.map((row) => ({
        referenceId: row.reference_id,
        citationKey: row.citation_key,
        entryType: row.entry_type,
        title: row.title,
        authors: row.authors,
        year: row.year,
        venue: row.venue,
        abstract: row.abstract,
        doi: row.doi,
        arxivId: row.arxiv_id,
        pmid: row.pmid,
        url: row.url,
        keywords: row.keywords,
        rank: Number(row.rank),
      })),
    };
  }
}

/**
 * `(graph & neural & network) | molecul`: each phrase's words must all match, any phrase may.
 * Words are reduced to letters and digits, so no user text reaches tsquery syntax.
 */
export function toTsquery(phrases: readonly string[]): string | null {
  const groups = phrases
    .map((p) => p.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').match(/[\p{L}\p{N}]+/gu) ?? [])
    .filter((words) => words.length > 0)
    .map((words) => (words.length === 1 ? words[0] : `(${words.join(' & ')})`));
  return groups.length === 0 ? null : groups.join(' | ');
}

/**
 * The approved boolean query as a tsquery: a term's words all match (`&`), AND is `&`, OR is `|`, NOT
 * is `!`. Words are reduced to letters and digits, so no user text reaches tsquery syntax; a term
 * with no such word matches nothing searchable and is left out (null when nothing is left to search).
 */
export function expressionTsquery(expression: SearchExpression): string | null {
  const syntax: ExpressionSyntax = {
    term: (text) => {
      const words = searchWords(text);
      return words.length === 0 ? '' : words.length === 1 ? words[0]! : `(${words.join(' & ')})`;
    },
    and: (items) => joinNonEmpty(items, ' & '),
    or: (items) => joinNonEmpty(items, ' | '),
    andNot: (positive, excluded) => joinNonEmpty([positive ?? '', ...excluded.filter((e) => e !== '').map((e) => `!${e}`)], ' & '),
  };
  const rendered = renderExpression(expression, syntax);
  return rendered === '' || rendered.startsWith('!') ? null : rendered;
}

function joinNonEmpty(items: readonly string[], operator: string): string {
  const kept = items.filter((i) => i !== '');
  return kept.length === 0 ? '' : kept.length === 1 ? kept[0]! : `(${kept.join(operator)})`;
}

function uniqueByPaper(references: readonly LibraryReference[]): LibraryReference[] {
  const byId = new Map<string, LibraryReference>();
  for (const r of references) byId.set(paperIdOf(r), r);
  return [...byId.values()];
}
