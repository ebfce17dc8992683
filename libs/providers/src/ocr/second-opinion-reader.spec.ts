import type { OcrLine, OcrReader, OcrReading } from './port.js';
import { mathsOf, SecondOpinionReader } from './second-opinion-reader.js';

/** A reader that reads `lines` (text, confidence) from any image. */
function reader(name: string, lines: readonly (readonly [string, number])[], local = false): OcrReader & { closed: boolean } {
  const reading: OcrReading = {
    reader: name,
    local,
    width: 800,
    height: 200,
    lines: lines.map(([text, confidence], i): OcrLine => ({ text, confidence, box: { x0: 0, y0: 60 * i, x1: 800, y1: 60 * i + 50 }, chars: [] })),
  };
  return {
    reader: name,
    local,
    closed: false,
    read: () => Promise.resolve(reading),
    close() {
      this.closed = true;
      return Promise.resolve();
    },
  };
}

const IMAGE = new Uint8Array([1, 2, 3]);

describe('SecondOpinionReader', () => {
  it("lets the first reading stand when the second reads the same maths, at the second's weakest confidence", async () => {
    const both = new SecondOpinionReader(reader('vision-llm/openai/gpt-4o', [['Solve for y: 5y-4=2y+11', 0]]), reader('local/pp-ocrv4', [['Solve for y:', 0.99], ['5y − 4 = 2y + 11', 0.97]], true));
    const reading = await both.read(IMAGE);
    expect(reading).toMatchObject({ reader: 'vision-llm/openai/gpt-4o+local/pp-ocrv4', local: false, lines: [{ text: 'Solve for y: 5y-4=2y+11', confidence: 0.97 }] });
    expect(reading.lines[0]).not.toHaveProperty('unread');
  });

  it('marks every line when the maths differs (a digit, an exponent flattened, a letter run into a word), naming the other reading', async () => {
    for (const other of ['Solve for y: 5y-4=2y+17', 'Solve for y: 5y2-4=2y+11', 'Solve fory: sy-4=2y+11']) {
      const reading = await new SecondOpinionReader(reader('vision', [['Solve for y: 5y-4=2y+11', 0]]), reader('pp-ocr', [[other, 0.99]])).read(IMAGE);
      expect(reading.lines).toMatchObject([{ unread: `maths pp-ocr read otherwise ("${other}")` }]);
    }
  });

  it('compares maths, not spelling: widths, signs, spaces and prose words aside', () => {
    const of = (text: string): string => mathsOf({ reader: 'r', local: true, width: 1, height: 1, lines: [{ text, confidence: 1, box: { x0: 0, y0: 0, x1: 1, y1: 1 }, chars: [] }] });
    expect(of('Work out 12 × 13 − 4.')).toBe(of('Wrok out 12*13-4'));
    expect(of('Find the mean of 3, 5 and 10')).toBe('3 5 10');
    expect(of('x² + 1')).toBe(of('x^2 + 1'));
    expect(of('x² + 1')).not.toBe(of('x2 + 1'));
    expect(of('2.5 + 1')).not.toBe(of('25 + 1'));
  });

  it('closes both readers', async () => {
    const [first, second] = [reader('a', []), reader('b', [])];
    await new SecondOpinionReader(first, second).close();
    expect([first.closed, second.closed]).toEqual([true, true]);
  });
});
