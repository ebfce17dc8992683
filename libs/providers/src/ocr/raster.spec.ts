import { connectedComponents, resampleRegion } from './raster.js';

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

describe('resampleRegion', () => {
  it('gives each output pixel the bilinear mix of its four source pixels (the per-pixel formula)', () => {
    const width = 13;
    const height = 7;
    const data = Uint8Array.from({ length: width * height * 3 }, (_, i) => (i * 37 + 11) % 256);
    const src = { width, height, data };
    const region = { x0: 2, y0: 1, width: 9, height: 5 };
    const expected: number[] = [];
    const outW = 20;
    const outH = 4;
    for (let y = 0; y < outH; y += 1) {
      for (let x = 0; x < outW; x += 1) {
        const fx = Math.min(width - 1, Math.max(0, region.x0 + (x + 0.5) * (region.width / outW) - 0.5));
        const fy = Math.min(height - 1, Math.max(0, region.y0 + (y + 0.5) * (region.height / outH) - 0.5));
        const [x0, y0] = [Math.floor(fx), Math.floor(fy)];
        const [x1, y1] = [Math.min(width - 1, x0 + 1), Math.min(height - 1, y0 + 1)];
        const [wx, wy] = [fx - x0, fy - y0];
        const at = (px: number, py: number, k: number): number => data[(py * width + px) * 3 + k]!;
        for (let k = 0; k < 3; k += 1) expected.push((at(x0, y0, k) * (1 - wx) + at(x1, y0, k) * wx) * (1 - wy) + (at(x0, y1, k) * (1 - wx) + at(x1, y1, k) * wx) * wy);
      }
    }
    const got: number[] = [];
    resampleRegion(src, region, outW, outH, (_x, _y, r, g, b) => got.push(r, g, b));
    expect(got).toEqual(expected);
  });
});
