import { LibraryReferencesImported } from '@openpaw/contracts';
import { InMemoryKeptReplyStore } from '@openpaw/testkit';
import { RUN_ID } from '../../testing/handler-fixtures.js';
import { InMemoryLibraryStore } from '../../testing/in-memory-stores.js';
import { ImportLibraryReferencesHandler } from './import-library-references.handler.js';

describe('ImportLibraryReferencesHandler', () => {
  it('imports what it can read and lists what it skipped; a re-import updates', async () => {
    const library = new InMemoryLibraryStore();
    const handler = new ImportLibraryReferencesHandler(library, new InMemoryKeptReplyStore());
    const content = '@article{a, title={Deep learning}, doi={10.1038/nature14539}}\n@misc{b, author={Nobody}}';
    const first = await handler.execute({ commandId: 'i1', data: { importId: RUN_ID, userId: 'u', format: 'bibtex', content } });
    expect(first).toMatchObject({ message: LibraryReferencesImported, data: { added: 1, updated: 0, skipped: [{ entry: 1, reason: '@misc{b} has no title' }] } });
    const again = await handler.execute({ commandId: 'i2', data: { importId: RUN_ID, userId: 'u', format: 'bibtex', content } });
    expect(again).toMatchObject({ data: { added: 0, updated: 1 } });
    expect([...library.references.get('u')!.keys()]).toEqual(['doi:10.1038/nature14539']);
  });
});
