// vLLM 0.11's own wording, in one place: the stand-in speaks it and the launcher/client recognise it.
// Sources (vllm-project/vllm): vllm/v1/engine/processor.py `_validate_model_input`,
// vllm/entrypoints/openai/serving_engine.py `_validate_input`, vllm/multimodal/processing.py
// `validate_num_items`, vllm/multimodal/utils.py `MediaConnector._load_file_url`,
// vllm/v1/core/kv_cache_utils.py `check_enough_kv_cache_memory`, api_server.py
// `AuthenticationMiddleware`, protocol.py `ErrorResponse{error: ErrorInfo}` (nested since 0.10.1).

/** The engine refuses a prompt (text + image tokens) longer than --max-model-len. */
export function decoderPromptTooLong(promptTokens: number, maxModelLen: number): string {
  return (
    `The decoder prompt (length ${promptTokens}) is longer than the maximum model length of ${maxModelLen}. ` +
    'Make sure that `max_model_len` is no smaller than the number of text tokens plus multimodal tokens. ' +
    'For image inputs, the number of image tokens depends on the number of images, and possibly their aspect ratios as well.'
  );
}

/** The OpenAI layer's check on text tokens + max_tokens (text-only prompts reach it with their real size). */
export function contextLengthExceeded(promptTokens: number, maxTokens: number, maxModelLen: number): string {
  return (
    `This model's maximum context length is ${maxModelLen} tokens. However, you requested ` +
    `${promptTokens + maxTokens} tokens (${promptTokens} in the messages, ${maxTokens} in the completion). ` +
    'Please reduce the length of the messages or completion.'
  );
}

/** --limit-mm-per-prompt exceeded (Qwen3-VL declares no model limit, so no "Set ..." hint follows). */
export function tooManyItems(limit: number, modality = 'image'): string {
  return `At most ${limit} ${modality}(s) may be provided in one prompt.`;
}

export function fileOutsideAllowedPath(filePath: string, allowed: string): string {
  return `The file path ${filePath} must be a subpath of \`--allowed-local-media-path\` ${allowed}.`;
}

export const NO_LOCAL_MEDIA_PATH = 'Cannot load local files without `--allowed-local-media-path`.';
export const BAD_URL_SCHEME = 'The URL must be either a HTTP, data or file URL.';

/**
 * Chat preprocessing errors (image loading, item limits, the text length check) are reported by
 * serving_chat.py as f"{e} {e.__cause__}", so vLLM's message ends in " None" there.
 */
export function preprocessingMessage(message: string): string {
  return `${message} None`;
}

/**
 * Startup refusal when --max-model-len does not fit the KV cache (printed, then the server exits).
 * vllm/v1/core/kv_cache_utils.py check_enough_kv_cache_memory, its own spelling ("models's") kept.
 */
export function kvCacheTooSmall(maxModelLen: number, neededGiB: number, availableGiB: number, estimatedMaxLen: number): string {
  return (
    `ValueError: To serve at least one request with the models's max seq len (${maxModelLen}), ` +
    `(${neededGiB.toFixed(2)} GiB KV cache is needed, which is larger than the available KV cache memory ` +
    `(${availableGiB.toFixed(2)} GiB). Based on the available memory, the estimated maximum model length is ` +
    `${estimatedMaxLen}. Try increasing \`gpu_memory_utilization\` or decreasing \`max_model_len\` when initializing the engine.`
  );
}

/** The body vLLM's middleware returns for a missing or wrong bearer key on /v1 paths. */
export const UNAUTHORIZED_BODY = { error: 'Unauthorized' } as const;

export interface VllmErrorBody {
  error: { message: string; type: string; param: string | null; code: number };
}

export function errorBody(message: string, code = 400, type = 'BadRequestError'): VllmErrorBody {
  return { error: { message, type, param: null, code } };
}

/** Does a 400 message say the request does not fit the context (never worth retrying)? */
export function isContextRefusal(message: string): boolean {
  return (
    /decoder prompt \(length \d+\) is longer than the maximum model length/i.test(message) ||
    /maximum context length is \d+ tokens/i.test(message) ||
    /Prompt length of \d+ is longer than the maximum model length/i.test(message)
  );
}

/** Does a server log say it could not start because the KV cache cannot hold --max-model-len? */
export function isKvCacheRefusal(logText: string): boolean {
  return (
    // vllm/v1/core/kv_cache_utils.py check_enough_kv_cache_memory (a log line may wrap, so either half counts).
    /To serve at least one request with the models?'s max seq len/.test(logText) ||
    /KV cache is needed, which is larger than the available KV cache memory/.test(logText) ||
    /No available memory for the cache blocks/.test(logText) ||
    /is larger than the maximum number of tokens that can be stored in KV cache/.test(logText)
  );
}

/** Does a server log show a GPU out-of-memory crash? */
export function isOutOfMemory(logText: string): boolean {
  return /CUDA out of memory|OutOfMemoryError/.test(logText);
}
