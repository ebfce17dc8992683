import { kindOfEntryType } from './library-source.js';

describe('kindOfEntryType (a library reference\'s record kind)', () => {
  it('reads BibTeX entry types and RIS TY codes, case-insensitively', () => {
    expect(['article', 'inproceedings', 'conference', 'incollection', 'phdthesis', 'techreport', 'book'].map((t) => kindOfEntryType(t, false))).toEqual([
      'journal_article',
      'conference_paper',
      'conference_paper',
      'book_chapter',
      'thesis',
      'report',
      'book',
    ]);
    expect(['JOUR', 'CPAPER', 'CONF', 'CHAP', 'THES', 'RPRT', 'UNPB', 'DATA'].map((t) => kindOfEntryType(t, false))).toEqual([
      'journal_article',
      'conference_paper',
      'conference_paper',
      'book_chapter',
      'thesis',
      'report',
      'preprint',
      'dataset',
    ]);
  });

  it('calls @misc a preprint only with an arXiv id, and otherwise leaves the kind unknown', () => {
    expect(kindOfEntryType('misc', true)).toBe('preprint');
    expect(kindOfEntryType('misc', false)).toBeNull();
    expect(kindOfEntryType('GEN', false)).toBeNull();
  });
});
