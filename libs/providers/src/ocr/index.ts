// The OCR port (@openpaw/providers/ocr): an image in, lines out with their confidences and boxes.
export { type OcrAlternative, type OcrBox, type OcrChar, OcrInputError, type OcrLine, type OcrReader, OcrReaderClosedError, OcrReaderError, type OcrReading, type OcrReadOptions, OcrTimeoutError, readingOrder, type SecondLookOptions } from './port.js';
export { decodeRgb, type DecodeLimits, DEFAULT_DECODE_LIMITS, type RgbRaster } from './raster.js';
export { bundledPpOcrModels, PP_OCR_READER, type PpOcrModelPaths, PpOcrReader, type PpOcrReaderOptions } from './ppocr/ppocr-reader.js';
export { ONNX_WORKER_SOURCE, OnnxWorkerPool, type OnnxWorkerPoolOptions } from './ppocr/onnx-worker-pool.js';
export {
  createOcrReader,
  OCR_READER_NAMES,
  OcrConfigurationError,
  type OcrReaderName,
  type OcrReaderSettings,
  type OcrRemoteSettings,
  ocrRemoteSettingsFromEnv,
} from './create-ocr-reader.js';
export { MATHPIX_BASE_URL, MATHPIX_READER, MathpixReader, type MathpixReaderOptions } from './remote/mathpix-reader.js';
export { VISION_LLM_READER, VisionLlmReader, type VisionLlmReaderOptions } from './remote/vision-llm-reader.js';
export { mathsOf, SecondOpinionReader } from './second-opinion-reader.js';
export { GOOGLE_VISION_BASE_URL, GOOGLE_VISION_READER, type GoogleVisionCredentials, GoogleVisionReader, type GoogleVisionReaderOptions } from './remote/google-vision-reader.js';
