import { connectedComponents } from './raster.js';

/** A grid from rows of '#' (on) and '.' (off). */
function grid(rows: readonly string[]): { width: number; height: number; on: (i: number) => boolean } {
  const width = rows[0]?.length ?? 0;
  const cells = rows.join('');
  return { width, height: rows.length, on: (i) => cells[i] === '#' };
}

describe('connectedComponents', () => {
  it('joins diagonal neighbours (8-way), labels each region and gives its inclusive bounds', () => {
    const { width, height, on } = grid(['#..#', '.#.#', '....', '##..']);
    const { label, components } = connectedComponents(width, height, on);
    expect(components).toEqual([
      { label: 1, x0: 0, y0: 0, x1: 1, y1: 1 },
      { label: 2, x0: 3, y0: 0, x1: 3, y1: 1 },
      { label: 3, x0: 0, y0: 3, x1: 1, y1: 3 },
    ]);
    expect([...label]).toEqual([1, 0, 0, 2, 0, 1, 0, 2, 0, 0, 0, 0, 3, 3, 0, 0]);
  });

  it('follows a region that winds across the whole grid without recursion limits', () => {
    const width = 400;
    const height = 400;
    // A serpentine path: every even row full, odd rows joined at alternating ends.
    const on = (i: number): boolean => {
      const y = Math.floor(i / width);
      const x = i % width;
      return y % 2 === 0 || (y % 4 === 1 ? x === width - 1 : x === 0);
    };
    const { components } = connectedComponents(width, height, on);
    expect(components).toEqual([{ label: 1, x0: 0, y0: 0, x1: width - 1, y1: height - 1 }]);
  });

  it('finds nothing on an empty grid', () => {
    expect(connectedComponents(3, 2, () => false).components).toEqual([]);
    expect(connectedComponents(0, 0, () => true).components).toEqual([]);
  });
});
