import sharp from 'sharp';

/** Degraded copies of a fixture image, as a re-submitted problem arrives (shared by the specs). */
export const degrade = {
  jpeg: (png: Buffer, quality = 40): Promise<Buffer> => sharp(png).jpeg({ quality }).toBuffer(),
  half: async (png: Buffer): Promise<Buffer> => {
    const { width = 0 } = await sharp(png).metadata();
    return sharp(png).resize({ width: Math.round(width / 2) }).png().toBuffer();
  },
  cropTopLeft: async (png: Buffer, fraction: number): Promise<Buffer> => {
    const { width = 0, height = 0 } = await sharp(png).metadata();
    const left = Math.round(width * fraction);
    const top = Math.round(height * fraction);
    return sharp(png).extract({ left, top, width: width - left, height: height - top }).png().toBuffer();
  },
  rotate: (png: Buffer, degrees: number): Promise<Buffer> => sharp(png).rotate(degrees, { background: '#ffffff' }).png().toBuffer(),
  brightness: (png: Buffer, factor: number): Promise<Buffer> => sharp(png).modulate({ brightness: factor }).png().toBuffer(),
  noise: async (png: Buffer, sigma: number, seed = 1): Promise<Buffer> => {
    const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    let state = seed >>> 0;
    const uniform = (): number => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return (state + 0.5) / 4294967296;
    };
    const out = Buffer.alloc(data.length);
    for (let i = 0; i < data.length; i += 1) {
      const gaussian = Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
      out[i] = Math.max(0, Math.min(255, Math.round((data[i] ?? 0) + sigma * gaussian)));
    }
    return sharp(out, { raw: { width: info.width, height: info.height, channels: info.channels } }).png().toBuffer();
  },
};
