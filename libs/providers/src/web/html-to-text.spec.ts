import { decodeEntities, htmlToText, readHtml } from './html-to-text.js';

describe('htmlToText', () => {
  it('reads the problem off a page: head, script and style dropped, blocks as lines, references decoded', () => {
    const page = `<!DOCTYPE html><html><head><title>Homework</title><style>p { color: red }</style></head>
      <body><!-- nav --><script>var x = "<p>not text</p>";</script>
      <h1>Problem&nbsp;3</h1><p>Solve for <i>x</i>: 3x&sup2; &minus; 12 = 0</p><p>Give both roots &amp; check them.</p>
      <table><tr><td>a</td><td>b</td></tr></table></body></html>`;
    expect(htmlToText(page)).toBe('Problem 3\nSolve for x: 3x² − 12 = 0\nGive both roots & check them.\na b');
  });

  it('keeps a bare "<" of the text and tolerates broken markup', () => {
    expect(htmlToText('<p>x < 3 and y >= 2</p>')).toBe('x < 3 and y >= 2');
    expect(htmlToText('<div>find &#x3c0; &#960; &unknown; &#0;</div><p unterminated')).toBe('find π π &unknown; &#0;');
    expect(htmlToText('<SCRIPT type="x">alert(1)</Script >after')).toBe('after');
    expect(htmlToText('<script>never closed')).toBe('');
  });

  it('reads a document: title, paragraphs as blank lines, <br> as a line, navigation and footer dropped on request', () => {
    const page =
      '<html><head><title>Cells &amp; Life</title><style>p{}</style></head><body><nav>Menu</nav><h1>Cells</h1><p>A cell has a&nbsp;membrane.<br>It divides.</p><script>alert(1)</script><footer>(c) 2026</footer></body></html>';
    expect(readHtml(page, { dropBoilerplate: true, paragraphBreak: '\n\n' })).toEqual({ title: 'Cells & Life', text: 'Cells\n\nA cell has a membrane.\nIt divides.' });
    expect(readHtml(page)).toEqual({ title: 'Cells & Life', text: 'Menu\nCells\nA cell has a membrane.\nIt divides.\n(c) 2026' });
    expect(readHtml('<p>no title</p>').title).toBeUndefined();
    expect(decodeEntities('&#x41;&#66;&unknown;&copy;')).toBe('AB&unknown;©');
  });

  it('stays linear on hostile input', () => {
    const hostile = '<script>'.repeat(20_000) + '<'.repeat(200_000) + '&#'.repeat(100_000);
    const started = performance.now();
    htmlToText(hostile);
    readHtml(hostile, { dropBoilerplate: true, paragraphBreak: '\n\n' });
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
