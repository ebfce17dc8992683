import { renderProblemPng, startGoogleVisionWireServer, startMathpixWireServer } from '@openpaw/testkit';
import { createOcrReader, OcrConfigurationError, type OcrReaderName } from './create-ocr-reader.js';
import { PpOcrReader } from './ppocr/ppocr-reader.js';
import { GOOGLE_VISION_READER, GoogleVisionReader } from './remote/google-vision-reader.js';
import { MATHPIX_READER, MathpixReader } from './remote/mathpix-reader.js';
import { SecondOpinionReader } from './second-opinion-reader.js';

const settings = (reader: OcrReaderName) => ({ reader, workers: 1, timeoutMs: 2_000 });

describe('createOcrReader', () => {
  it('builds the local PP-OCRv4 reader for pp-ocr, needing no credentials', async () => {
    const reader = createOcrReader(settings('pp-ocr'), {});
    try {
      expect(reader).toBeInstanceOf(PpOcrReader);
      expect(reader).toMatchObject({ reader: 'local/pp-ocrv4', local: true });
    } finally {
      await reader.close();
    }
  });

  it('builds remote readers from their credentials, reporting local: false', () => {
    const mathpix = createOcrReader(settings('mathpix'), { MATHPIX_APP_ID: 'app', MATHPIX_APP_KEY: 'key-0123' });
    expect(mathpix).toBeInstanceOf(MathpixReader);
    expect(mathpix).toMatchObject({ reader: MATHPIX_READER, local: false });
    const vision = createOcrReader(settings('google-vision'), { GOOGLE_VISION_ACCESS_TOKEN: 'ya29.token' });
    expect(vision).toBeInstanceOf(GoogleVisionReader);
    expect(vision).toMatchObject({ reader: GOOGLE_VISION_READER, local: false });
  });

  it('builds vision-llm as the vision model checked by local PP-OCRv4, from the model and its key', async () => {
    const reader = createOcrReader(settings('vision-llm'), { OPENPAW_OCR_VISION_MODEL: 'anthropic/claude-sonnet-4-5', ANTHROPIC_API_KEY: 'sk-ant-0123' });
    expect(reader).toBeInstanceOf(SecondOpinionReader);
    expect(reader).toMatchObject({ reader: 'vision-llm/anthropic/claude-sonnet-4-5+local/pp-ocrv4', local: false });
    await reader.close();
    expect(() => createOcrReader(settings('vision-llm'), { ANTHROPIC_API_KEY: 'sk-ant-0123' })).toThrow(new OcrConfigurationError('OCR reader vision-llm needs OPENPAW_OCR_VISION_MODEL'));
    expect(() => createOcrReader(settings('vision-llm'), { OPENPAW_OCR_VISION_MODEL: 'gemini/gemini-2.5-flash' })).toThrow(new OcrConfigurationError('OCR reader vision-llm needs GEMINI_API_KEY or GOOGLE_API_KEY for gemini/gemini-2.5-flash'));
    expect(() => createOcrReader(settings('vision-llm'), { OPENPAW_OCR_VISION_MODEL: 'local/deterministic' })).toThrow(/needs a vision model of openai, anthropic or gemini/);
  });

  it('fails at start-up naming the missing credential', () => {
    expect(() => createOcrReader(settings('mathpix'), { MATHPIX_APP_ID: 'app', MATHPIX_APP_KEY: '  ' })).toThrow(new OcrConfigurationError('OCR reader mathpix needs MATHPIX_APP_KEY'));
    expect(() => createOcrReader(settings('mathpix'), {})).toThrow(new OcrConfigurationError('OCR reader mathpix needs MATHPIX_APP_ID'));
    const exactlyOne = new OcrConfigurationError('OCR reader google-vision needs exactly one of GOOGLE_VISION_API_KEY or GOOGLE_VISION_ACCESS_TOKEN');
    expect(() => createOcrReader(settings('google-vision'), {})).toThrow(exactlyOne);
    expect(() => createOcrReader(settings('google-vision'), { GOOGLE_VISION_API_KEY: 'AIza-k', GOOGLE_VISION_ACCESS_TOKEN: 'ya29.t' })).toThrow(exactlyOne);
  });

  it('sends each remote reader to the base URL and with the credentials its env names', async () => {
    const image = await renderProblemPng('3 + 4');
    const line = { text: '3+4', confidence: 0.9, box: { x0: 60, y0: 100, x1: 300, y1: 160 } };
    const mathpixServer = await startMathpixWireServer({ appId: 'app', appKey: 'key-0123' }, () => ({ width: 900, height: 260, lines: [line] }));
    const visionServer = await startGoogleVisionWireServer({ apiKey: 'AIza-test-key' }, () => ({ width: 900, height: 260, lines: [line] }));
    try {
      const mathpix = createOcrReader(settings('mathpix'), { MATHPIX_APP_ID: 'app', MATHPIX_APP_KEY: 'key-0123', MATHPIX_BASE_URL: mathpixServer.baseUrl });
      const vision = createOcrReader(settings('google-vision'), { GOOGLE_VISION_API_KEY: 'AIza-test-key', GOOGLE_VISION_BASE_URL: visionServer.baseUrl });
      expect((await mathpix.read(image)).lines.map((l) => l.text)).toEqual(['3+4']);
      expect((await vision.read(image)).lines.map((l) => l.text)).toEqual(['3+4']);
    } finally {
      await Promise.all([mathpixServer.close(), visionServer.close()]);
    }
  });
});
