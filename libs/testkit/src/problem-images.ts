import sharp from 'sharp';

/** A printed problem as a PNG, the way a student's screenshot or scan looks. */
export async function renderProblemPng(text: string): Promise<Buffer> {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="900" height="260">
    <rect width="100%" height="100%" fill="white"/>
    <text x="60" y="150" font-family="DejaVu Sans, sans-serif" font-size="64" fill="black">${escaped}</text>
  </svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** The same picture re-photographed: JPEG-compressed and resized. */
export async function rephotograph(png: Buffer): Promise<Buffer> {
  const { width } = await sharp(png).metadata();
  return sharp(png)
    .resize(Math.round((width ?? 900) * 0.6))
    .jpeg({ quality: 45 })
    .toBuffer();
}
