import { ProviderError } from './errors.js';
import type { ChatImage, ChatMessage } from './port.js';

/** The images of `message` (none: empty), refused on any role but `user` (a provider takes them there only). */
export function imagesOf(message: ChatMessage, provider: string): readonly ChatImage[] {
  const images = message.images ?? [];
  if (images.length > 0 && message.role !== 'user') throw new ProviderError('bad_request', provider, `images go with user messages only (a ${message.role} message had ${images.length})`);
  return images;
}

/** Base64 of an image, as every provider's JSON wants it. */
export function base64Of(image: ChatImage): string {
  return Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength).toString('base64');
}

/** `data:<type>;base64,<data>`: an image inline in a URL field (OpenAI's `image_url`). */
export function dataUrlOf(image: ChatImage): string {
  return `data:${image.mimeType};base64,${base64Of(image)}`;
}
