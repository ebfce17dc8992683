import { BadRequestException, HttpException, PayloadTooLargeException } from '@nestjs/common';
import type { Request } from 'express';
import { problemInputOf } from '../problems.controller.js';
import { formatBytes, sniffImageType, uploadBlobKey, userKeySegment } from './image-upload.js';
import { uploadRefusal } from './problem-upload.interceptor.js';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]);

/** A request as Express and multer leave it: `is()` by content type, `body`, and `file` for multipart. */
function requestOf(contentType: string | undefined, body: unknown, file?: { buffer: Buffer; originalname?: string }): Request {
  const type = contentType?.split(';')[0]?.trim();
  return {
    headers: contentType === undefined ? {} : { 'content-type': contentType },
    body,
    is: (candidate: string) => (type === undefined ? null : type === candidate ? candidate : false),
    ...(file === undefined ? {} : { file: { buffer: file.buffer, size: file.buffer.length, originalname: file.originalname ?? 'photo.png' } }),
  } as unknown as Request;
}

function refusal(run: () => unknown): { status: number; body: unknown } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(HttpException);
    return { status: (error as HttpException).getStatus(), body: (error as HttpException).getResponse() };
  }
  throw new Error('expected a refusal');
}

describe('image uploads', () => {
  it('recognises accepted images by their bytes, whatever the client claims', () => {
    expect(sniffImageType(PNG)).toBe('image/png');
    expect(sniffImageType(JPEG)).toBe('image/jpeg');
    expect(sniffImageType(Buffer.from('RIFF\0\0\0\0WEBPVP8 '))).toBe('image/webp');
    expect(sniffImageType(Buffer.from('GIF89a...'))).toBe('image/gif');
    expect(sniffImageType(Buffer.from('\0\0\0\x1cftypheic\0\0'))).toBe('image/heic');
    expect(sniffImageType(Buffer.from('\0\0\0\x1cftypavif\0\0'))).toBe('image/avif');
    expect(sniffImageType(Buffer.from('%PDF-1.7'))).toBeUndefined();
    expect(sniffImageType(Buffer.from('2x + 3 = 7'))).toBeUndefined();
    expect(sniffImageType(Buffer.alloc(0))).toBeUndefined();
  });

  it('keys uploads by user and content hash, hashing user ids that are not plain key segments', () => {
    expect(uploadBlobKey('user-1', 'ab'.repeat(32))).toBe(`uploads/user-1/${'ab'.repeat(32)}`);
    expect(userKeySegment('auth0|abc@x.org')).toBe('auth0|abc@x.org');
    for (const odd of ['..', 'a/b', 'tab\there', '', 'x'.repeat(200)]) expect(userKeySegment(odd)).toMatch(/^u-[0-9a-f]{32}$/);
  });

  it('names limits in binary units', () => {
    expect(formatBytes(10 * 1024 * 1024)).toBe('10 MB');
    expect(formatBytes(64 * 1024)).toBe('64 KB');
    expect(formatBytes(1500)).toBe('1500 bytes');
  });

  it("maps multer's refusals to 413 naming the limit and 400 naming the field", () => {
    const tooLarge = uploadRefusal(new PayloadTooLargeException('File too large', { cause: { code: 'LIMIT_FILE_SIZE', field: 'file' } }), 10 * 1024 * 1024);
    expect(tooLarge).toBeInstanceOf(PayloadTooLargeException);
    expect((tooLarge as HttpException).getResponse()).toEqual({
      error: 'payload_too_large',
      message: 'the file is larger than the upload limit of 10 MB',
      field: 'file',
      limit_bytes: 10 * 1024 * 1024,
    });
    const misnamed = uploadRefusal(new BadRequestException('Unexpected field', { cause: { code: 'LIMIT_UNEXPECTED_FILE', field: 'image' } }), 1);
    expect((misnamed as HttpException).getResponse()).toEqual({
      error: 'validation_failed',
      location: 'body',
      issues: [{ path: 'image', message: 'unexpected file field; send one image as "file"' }],
    });
    const malformed = uploadRefusal(new BadRequestException('Multipart: Unexpected end of form', { cause: { message: 'Unexpected end of form' } }), 1);
    expect((malformed as HttpException).getResponse()).toEqual({ error: 'malformed_multipart', message: 'Unexpected end of form' });
    const other = new Error('disk on fire');
    expect(uploadRefusal(other, 1)).toBe(other);
  });
});

describe('problemInputOf (the submitted content)', () => {
  const multipart = 'multipart/form-data; boundary=x';

  it('takes an image from a multipart body, with the intent field', () => {
    expect(problemInputOf(requestOf(multipart, { intent: 'explain', content_sensitivity: 'sensitive' }, { buffer: PNG, originalname: 'p.png' }))).toEqual({
      intent: 'explain',
      contentSensitivity: 'sensitive',
      confirmReading: false,
      // A signature without a header that gives its size: charged as the largest image ingestion decodes.
      content: { kind: 'image', bytes: PNG, contentType: 'image/png', filename: 'p.png', megapixels: 40 },
    });
    expect(problemInputOf(requestOf(multipart, {}, { buffer: JPEG })).intent).toBe('solve');
  });

  it('takes the opt-in to confirm an uncertain reading from a multipart field or the JSON body, and refuses a value that is no boolean', () => {
    expect(problemInputOf(requestOf(multipart, { confirm_reading: 'true' }, { buffer: PNG })).confirmReading).toBe(true);
    expect(problemInputOf(requestOf(multipart, { confirm_reading: 'false' }, { buffer: PNG })).confirmReading).toBe(false);
    expect(problemInputOf(requestOf('application/json', { text: '2x = 4', confirm_reading: true })).confirmReading).toBe(true);
    expect(refusal(() => problemInputOf(requestOf(multipart, { confirm_reading: 'perhaps' }, { buffer: PNG })))).toMatchObject({ status: 400, body: { issues: [{ path: 'confirm_reading' }] } });
    expect(refusal(() => problemInputOf(requestOf('application/json', { text: '2x = 4', confirm_reading: 'yes' })))).toMatchObject({ status: 400, body: { issues: [{ path: 'confirm_reading' }] } });
  });

  it('refuses a multipart body without a file, with an empty one, or with a bad intent (400 naming the field)', () => {
    expect(refusal(() => problemInputOf(requestOf(multipart, { intent: 'solve' })))).toEqual({
      status: 400,
      body: { error: 'validation_failed', location: 'body', issues: [{ path: 'file', message: 'an image file is required as multipart field "file"' }] },
    });
    expect(refusal(() => problemInputOf(requestOf(multipart, {}, { buffer: Buffer.alloc(0) })))).toMatchObject({
      status: 400,
      body: { issues: [{ path: 'file', message: 'the file is empty' }] },
    });
    expect(refusal(() => problemInputOf(requestOf(multipart, { intent: 'Solve it!' }, { buffer: PNG })))).toMatchObject({
      status: 400,
      body: { issues: [{ path: 'intent' }] },
    });
  });

  it('refuses a file that is not an accepted image with 415', () => {
    expect(refusal(() => problemInputOf(requestOf(multipart, {}, { buffer: Buffer.from('%PDF-1.7') })))).toMatchObject({
      status: 415,
      body: { error: 'unsupported_media_type', field: 'file' },
    });
  });

  it('takes text or a URL from JSON, exactly one of them', () => {
    expect(problemInputOf(requestOf('application/json', { text: '  2x + 3 = 7 ' }))).toEqual({ intent: 'solve', contentSensitivity: 'standard', confirmReading: false, content: { kind: 'text', text: '2x + 3 = 7' } });
    expect(problemInputOf(requestOf('application/json; charset=utf-8', { url: 'https://example.com/p.png', intent: 'solve', content_sensitivity: 'sensitive' }))).toEqual({
      intent: 'solve',
      contentSensitivity: 'sensitive',
      confirmReading: false,
      content: { kind: 'url', url: 'https://example.com/p.png' },
    });
    // No body at all is an empty JSON object.
    expect(refusal(() => problemInputOf(requestOf(undefined, undefined)))).toMatchObject({ status: 400, body: { issues: [{ path: 'text' }] } });
    expect(refusal(() => problemInputOf(requestOf('application/json', { text: 'a', url: 'https://example.com' })))).toMatchObject({
      status: 400,
      body: { issues: [{ path: 'url', message: 'give `text` or `url`, not both' }] },
    });
    expect(refusal(() => problemInputOf(requestOf('application/json', { text: 'x'.repeat(20_001) })))).toMatchObject({ body: { issues: [{ path: 'text' }] } });
    expect(refusal(() => problemInputOf(requestOf('application/json', { text: '2x = 4', content_sensitivity: 'public' })))).toMatchObject({
      status: 400,
      body: { issues: [{ path: 'content_sensitivity' }] },
    });
  });

  it('refuses other content types with 415', () => {
    expect(refusal(() => problemInputOf(requestOf('text/plain', '2x = 4')))).toMatchObject({ status: 415, body: { error: 'unsupported_media_type' } });
  });
});
