import { type Env, envHttpUrl, envValue } from '../shared/env.js';
import type { OcrReader } from './port.js';
import { PpOcrReader } from './ppocr/ppocr-reader.js';
import { GoogleVisionReader } from './remote/google-vision-reader.js';
import { MathpixReader } from './remote/mathpix-reader.js';
import { VisionLlmReader } from './remote/vision-llm-reader.js';
import { SecondOpinionReader } from './second-opinion-reader.js';
import { createLlmFromEnv, llmSettingsFromEnv } from '../llm/create-llm-from-env.js';
import { parseModelRef } from '../llm/model-ref.js';

/** The env variable holding each vision provider's key (as `createLlmFromEnv` reads them). */
const VISION_KEYS: Readonly<Record<string, readonly string[]>> = { openai: ['OPENAI_API_KEY'], anthropic: ['ANTHROPIC_API_KEY'], gemini: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'] };

/** The readers a service can be configured with; `pp-ocr` (local PP-OCRv4) is the default everywhere. */
export const OCR_READER_NAMES = ['pp-ocr', 'mathpix', 'google-vision', 'vision-llm'] as const;
export type OcrReaderName = (typeof OCR_READER_NAMES)[number];

export interface OcrReaderSettings {
  readonly reader: OcrReaderName;
  /** Local inference workers (PP-OCRv4: each one ONNX Runtime, ~100 MB, one core). */
  readonly workers: number;
  /** Bound on one read: a hung local inference is terminated, a hung remote call aborted. */
  readonly timeoutMs: number;
}

/** A remote reader was chosen without its credentials; the message names the variables. */
export class OcrConfigurationError extends Error {
  override readonly name = 'OcrConfigurationError';
}

function required(env: Env, name: string, reader: OcrReaderName): string {
  const value = envValue(env, name);
  if (value === undefined) throw new OcrConfigurationError(`OCR reader ${reader} needs ${name}`);
  return value;
}

/**
 * The reader the settings name. Remote readers take their credentials from `env`: Mathpix
 * `MATHPIX_APP_ID` + `MATHPIX_APP_KEY`; Google Vision `GOOGLE_VISION_API_KEY` or
 * `GOOGLE_VISION_ACCESS_TOKEN` (exactly one). `MATHPIX_BASE_URL` / `GOOGLE_VISION_BASE_URL` point at
 * another endpoint (a regional one, a proxy). `vision-llm` is the model `OPENPAW_OCR_VISION_MODEL`
 * names (`provider/model`, its key from that provider's usual variable) read through the LLM port, with
 * local PP-OCRv4 as the second opinion every reading must agree with (`SecondOpinionReader`). Missing
 * credentials fail here, at start-up, not on the first image. `local`, when given, is the PP-OCRv4 reader
 * to use as the default and the second opinion (one pool of workers shared with a caller that also reads
 * locally, e.g. for a tenant whose images may not leave); otherwise one is created.
 */
export function createOcrReader(settings: OcrReaderSettings, env: Env, local?: OcrReader): OcrReader {
  const localReader = (): OcrReader => local ?? new PpOcrReader({ workers: settings.workers, timeoutMs: settings.timeoutMs });
  const remote = ocrRemoteSettingsFromEnv(settings.reader, env);
  switch (remote.reader) {
    case 'pp-ocr':
      return localReader();
    case 'mathpix':
      return new MathpixReader({ ...remote.config, timeoutMs: settings.timeoutMs });
    case 'google-vision':
      return new GoogleVisionReader({ ...remote.config, timeoutMs: settings.timeoutMs });
    case 'vision-llm': {
      const vision = new VisionLlmReader({ llm: createLlmFromEnv(env), model: remote.model, timeoutMs: settings.timeoutMs });
      return new SecondOpinionReader(vision, localReader());
    }
  }
}

/** What the chosen reader takes from the environment (credentials, endpoint, model). */
export type OcrRemoteSettings =
  | { readonly reader: 'pp-ocr' }
  | { readonly reader: 'mathpix'; readonly config: { readonly appId: string; readonly appKey: string; readonly baseUrl?: string } }
  | {
      readonly reader: 'google-vision';
      readonly config: { readonly credentials: { readonly apiKey: string } | { readonly accessToken: string }; readonly baseUrl?: string };
    }
  | { readonly reader: 'vision-llm'; readonly model: string };

/**
 * Reads and validates what `reader` needs from `env` without building anything (no worker, no
 * client): a missing credential or a malformed URL is refused here, naming the variables, so a service
 * can check them before it starts. `vision-llm` also validates the LLM settings it reads through.
 */
export function ocrRemoteSettingsFromEnv(reader: OcrReaderName, env: Env): OcrRemoteSettings {
  switch (reader) {
    case 'pp-ocr':
      return { reader };
    case 'mathpix': {
      const baseUrl = envHttpUrl(env, 'MATHPIX_BASE_URL');
      return { reader, config: { appId: required(env, 'MATHPIX_APP_ID', reader), appKey: required(env, 'MATHPIX_APP_KEY', reader), ...(baseUrl === undefined ? {} : { baseUrl }) } };
    }
    case 'google-vision': {
      const apiKey = envValue(env, 'GOOGLE_VISION_API_KEY');
      const accessToken = envValue(env, 'GOOGLE_VISION_ACCESS_TOKEN');
      if ((apiKey === undefined) === (accessToken === undefined)) {
        throw new OcrConfigurationError(`OCR reader google-vision needs exactly one of GOOGLE_VISION_API_KEY or GOOGLE_VISION_ACCESS_TOKEN`);
      }
      const baseUrl = envHttpUrl(env, 'GOOGLE_VISION_BASE_URL');
      return { reader, config: { credentials: apiKey !== undefined ? { apiKey } : { accessToken: accessToken as string }, ...(baseUrl === undefined ? {} : { baseUrl }) } };
    }
    case 'vision-llm': {
      const model = required(env, 'OPENPAW_OCR_VISION_MODEL', reader);
      let provider: string;
      try {
        provider = parseModelRef(model).provider;
      } catch (error) {
        throw new OcrConfigurationError(`OPENPAW_OCR_VISION_MODEL: ${(error as Error).message}`);
      }
      const keys = VISION_KEYS[provider];
      if (keys === undefined) throw new OcrConfigurationError(`OCR reader vision-llm needs a vision model of openai, anthropic or gemini in OPENPAW_OCR_VISION_MODEL (got ${model})`);
      if (keys.every((key) => envValue(env, key) === undefined)) throw new OcrConfigurationError(`OCR reader vision-llm needs ${keys.join(' or ')} for ${model}`);
      llmSettingsFromEnv(env);
      return { reader, model };
    }
  }
}
