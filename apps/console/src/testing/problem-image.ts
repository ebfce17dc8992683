import sharp from 'sharp';

/** A printed problem as a PNG, the way a student's screenshot looks (as the gateway's e2e specs draw it). */
export async function renderProblemPng(text: string): Promise<Buffer> {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="900" height="260">
    <rect width="100%" height="100%" fill="white"/>
    <text x="60" y="150" font-family="DejaVu Sans, sans-serif" font-size="64" fill="black">${escaped}</text>
  </svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}
