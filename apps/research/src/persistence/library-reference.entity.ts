import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A reference in a user's library (schema `research`): the local `library` source. `search` is a
 * generated tsvector (title A, keywords B, abstract C, authors and venue D) with a GIN index.
 */
@Entity({ name: 'library_references' })
export class LibraryReferenceEntity {
  @PrimaryColumn('text', { name: 'user_id' })
  userId!: string;

  /** The paper id of the reference (`doi:`, `arxiv:`, `pmid:` or `title:`): one row per paper. */
  @PrimaryColumn('text', { name: 'reference_id' })
  referenceId!: string;

  @Column('text', { name: 'citation_key' })
  citationKey!: string;

  @Column('text', { name: 'entry_type' })
  entryType!: string;

  @Column('text')
  title!: string;

  @Column('jsonb')
  authors!: string[];

  @Column('text', { name: 'authors_text' })
  authorsText!: string;

  @Column('integer', { nullable: true })
  year!: number | null;

  @Column('text', { nullable: true })
  venue!: string | null;

  @Column('text', { nullable: true })
  abstract!: string | null;

  @Column('text', { nullable: true })
  doi!: string | null;

  @Column('text', { name: 'arxiv_id', nullable: true })
  arxivId!: string | null;

  @Column('text', { nullable: true })
  pmid!: string | null;

  @Column('text', { nullable: true })
  url!: string | null;

  @Column('text', { array: true })
  keywords!: string[];

  @Column('text', { name: 'keywords_text' })
  keywordsText!: string;

  @Column('timestamptz', { name: 'imported_at' })
  importedAt!: Date;

  @Column('timestamptz', { name: 'updated_at' })
  updatedAt!: Date;
}
