import { deflateSync } from 'node:zlib';

/**
 * A one-page PDF whose content stream shows `lines` with Tj/TJ (Helvetica, WinAnsi): what a text
 * tool writes, built by hand so the extractor is tested without a PDF library. `compress` wraps the
 * content stream in FlateDecode.
 */
export function minimalPdf(lines: readonly string[], options: { compress?: boolean } = {}): Buffer {
  const escape = (s: string): string => s.replace(/[\\()]/g, (c) => `\\${c}`);
  const ops = lines
    .map((line, i) => {
      const words = line.split(' ');
      // Every other line as a TJ array with kerning, the rest as Tj.
      const show = i % 2 === 0 ? `(${escape(line)}) Tj` : `[${words.map((w) => `(${escape(w)})`).join(' -250 ')}] TJ`;
      return `${i === 0 ? '72 720 Td' : '0 -16 Td'} ${show}`;
    })
    .join('\n');
  const content = `BT /F1 12 Tf\n${ops}\nET`;
  const body = options.compress === true ? deflateSync(Buffer.from(content, 'latin1')) : Buffer.from(content, 'latin1');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    undefined,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  objects.forEach((object, index) => {
    offsets.push(length);
    const chunk =
      object === undefined
        ? Buffer.concat([
            Buffer.from(`${index + 1} 0 obj\n<< /Length ${body.length}${options.compress === true ? ' /Filter /FlateDecode' : ''} >>\nstream\n`, 'latin1'),
            body,
            Buffer.from('\nendstream\nendobj\n', 'latin1'),
          ])
        : Buffer.from(`${index + 1} 0 obj\n${object}\nendobj\n`, 'latin1');
    parts.push(chunk);
    length += chunk.length;
  });
  const xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}
