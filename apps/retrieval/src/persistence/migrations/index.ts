import type { MigrationInterface } from 'typeorm';
import { CreateRetrievalIndex1764100000001 } from './1764100000001-create-retrieval-index.js';
import { AddMathsSignature1764300000000 } from './1764300000000-add-maths-signature.js';
import { KeepRepliesAsList1764400000000 } from './1764400000000-keep-replies-as-list.js';
import { KeywordIndexWithoutPendingList1764600000000 } from './1764600000000-keyword-index-without-pending-list.js';
import { AddMathsUnknowns1765000000000 } from './1765000000000-add-maths-unknowns.js';
import { AddMathsVersion1765100000000 } from './1765100000000-add-maths-version.js';
import { AddWithdrawal1765200000000 } from './1765200000000-add-withdrawal.js';
import { registerSchemaMigrations } from '@openpaw/persistence';

/** The `retrieval` schema's migrations, in order. Never edit one that has shipped; add the next. */
export const retrievalMigrations: readonly (new () => MigrationInterface)[] = registerSchemaMigrations('retrieval', [
  CreateRetrievalIndex1764100000001,
  AddMathsSignature1764300000000,
  KeepRepliesAsList1764400000000,
  KeywordIndexWithoutPendingList1764600000000,
  AddMathsUnknowns1765000000000,
  AddMathsVersion1765100000000,
  AddWithdrawal1765200000000,
]);
