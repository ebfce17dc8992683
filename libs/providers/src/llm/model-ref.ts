/** A model id is `provider/model`; the model part may itself contain slashes (`openai/meta-llama/Llama-3.1-8B`). */
export interface ModelRef {
  readonly provider: string;
  readonly model: string;
  readonly id: string;
}

export function parseModelRef(id: string): ModelRef {
  const slash = id.indexOf('/');
  if (slash <= 0 || slash === id.length - 1) {
    throw new Error(`model id must be "provider/model", got "${id}"`);
  }
  return { provider: id.slice(0, slash), model: id.slice(slash + 1), id };
}

export function modelId(provider: string, model: string): string {
  return `${provider}/${model}`;
}
