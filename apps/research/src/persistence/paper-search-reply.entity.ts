import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The reply a paper-search command got, kept so a redelivery republishes it verbatim (same event id). */
@Entity({ name: 'paper_search_replies' })
export class PaperSearchReplyEntity {
  @PrimaryColumn('text', { name: 'command_id' })
  commandId!: string;

  /** Subject of the reply event. */
  @Column('text')
  subject!: string;

  @Column('jsonb')
  reply!: unknown;

  @Column('timestamptz', { name: 'created_at' })
  createdAt!: Date;
}
