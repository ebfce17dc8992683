import sharp from 'sharp';
import { ProviderError } from '../llm/errors.js';
import { fakeClock, useScriptedStubServer } from '../test-support/stub-server.js';
import { prepareImageForRecognition } from './prepare-image.js';
import { RekognitionRecognizer } from './rekognition-recognizer.js';

const stub = useScriptedStubServer();
const credentials = { accessKeyId: 'AKIDEXAMPLETEST', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
const AMZ_JSON = { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': 'b7f0c1e2-0000-4000-8000-000000000001' };

function recognizer(overrides: Partial<ConstructorParameters<typeof RekognitionRecognizer>[0]> = {}) {
  return new RekognitionRecognizer({ region: 'eu-west-1', endpoint: stub.server.url, credentials, ...overrides });
}

const celebrity = (id: string, name: string, confidence: number, width: number) => ({
  Urls: [`www.wikidata.org/wiki/${id}`],
  Name: name,
  Id: id,
  Face: { BoundingBox: { Width: width, Height: width * 1.3, Left: 0.1, Top: 0.2 }, Confidence: 99.9, Pose: { Roll: 0, Yaw: 0, Pitch: 0 }, Quality: { Brightness: 70, Sharpness: 80 } },
  MatchConfidence: confidence,
  KnownGender: { Type: 'Female' },
});

const error = (status: number, type: string, message: string) => ({
  status,
  headers: { ...AMZ_JSON, 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazonaws.rekognition/` },
  body: JSON.stringify({ __type: type, Message: message }),
});

describe('RekognitionRecognizer against a RecognizeCelebrities wire-format server', () => {
  let image: Buffer;
  beforeAll(async () => {
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#8090a0' } }).png().toBuffer();
    image = (await prepareImageForRecognition(png)).bytes;
  });

  it('sends a signed JSON 1.1 request with the bytes inline and returns celebrities largest first', async () => {
    stub.script.push(() => ({
      headers: AMZ_JSON,
      body: JSON.stringify({
        CelebrityFaces: [celebrity('1ZA5Jd', 'Small Face', 97.5, 0.1), celebrity('3Ir0du6', 'Big Face', 99.25, 0.3)],
        UnrecognizedFaces: [{ BoundingBox: { Width: 0.05, Height: 0.06, Left: 0.7, Top: 0.1 }, Confidence: 99 }],
      }),
    }));
    const r = recognizer();
    const result = await r.recognize(image);
    const request = stub.server.requests[0]!;
    expect(request.method).toBe('POST');
    expect(request.headers['x-amz-target']).toBe('RekognitionService.RecognizeCelebrities');
    expect(request.headers['content-type']).toBe('application/x-amz-json-1.1');
    expect(String(request.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLETEST\/\d{8}\/eu-west-1\/rekognition\/aws4_request/);
    expect(request.json()).toEqual({ Image: { Bytes: image.toString('base64') } });
    expect(result).toEqual({
      provider: 'aws/rekognition',
      local: false,
      unrecognizedFaces: 1,
      celebrities: [
        { celebrityId: '3Ir0du6', name: 'Big Face', matchConfidence: 99.25, box: { left: 0.1, top: 0.2, width: 0.3, height: 0.3 * 1.3 }, urls: ['www.wikidata.org/wiki/3Ir0du6'] },
        { celebrityId: '1ZA5Jd', name: 'Small Face', matchConfidence: 97.5, box: { left: 0.1, top: 0.2, width: 0.1, height: 0.1 * 1.3 }, urls: ['www.wikidata.org/wiki/1ZA5Jd'] },
      ],
    });
    r.destroy();
  });

  it('retries throttling and 5xx with backoff, then answers', async () => {
    stub.script.push(() => error(400, 'ThrottlingException', 'Rate exceeded'));
    stub.script.push(() => error(500, 'InternalServerError', 'Internal server error'));
    stub.script.push(() => ({ headers: AMZ_JSON, body: JSON.stringify({ CelebrityFaces: [], UnrecognizedFaces: [] }) }));
    const clock = fakeClock();
    const r = recognizer({ clock, random: () => 0 });
    expect((await r.recognize(image)).celebrities).toEqual([]);
    expect(clock.sleeps).toEqual([250, 500]);
    expect(stub.server.requests).toHaveLength(3);
    r.destroy();
  });

  it('fails at once, typed, on a refused image or bad credentials; gives up after the last throttled attempt', async () => {
    const r = recognizer({ clock: fakeClock(), retry: { maxAttempts: 2 } });
    stub.script.push(() => error(400, 'InvalidImageFormatException', 'Request has invalid image format'));
    await expect(r.recognize(image)).rejects.toMatchObject({ kind: 'bad_request', status: 400 });
    stub.script.push(() => error(400, 'UnrecognizedClientException', 'The security token included in the request is invalid.'));
    await expect(r.recognize(image)).rejects.toMatchObject({ kind: 'auth' });
    stub.script.push(() => error(400, 'ProvisionedThroughputExceededException', 'slow down'));
    stub.script.push(() => error(400, 'ProvisionedThroughputExceededException', 'slow down'));
    await expect(r.recognize(image)).rejects.toMatchObject({ kind: 'rate_limited' });
    expect(stub.server.requests).toHaveLength(4);
    r.destroy();
  });

  it('times out a hanging server and refuses images over 5 MB without sending them', async () => {
    stub.script.push(() => ({ hang: true }));
    const r = recognizer({ timeoutMs: 200, retry: { maxAttempts: 1 } });
    const failure = await r.recognize(image).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ProviderError);
    expect(failure).toMatchObject({ kind: 'timeout' });
    await expect(r.recognize(new Uint8Array(5 * 1024 * 1024 + 1))).rejects.toMatchObject({ kind: 'bad_request' });
    expect(stub.server.requests).toHaveLength(1);
    r.destroy();
  });
});
