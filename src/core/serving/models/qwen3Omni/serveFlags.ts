// Qwen3-Omni's own launch flags on a vLLM server (SPEC-AVTIME §3), each with the vLLM file or issue it follows.
export const QWEN3_OMNI_SERVE_FLAGS: readonly string[] = [
  // One video and the audio parse_video extracts from it (vllm/entrypoints/chat_utils.py, PR #36319) per prompt.
  '--limit-mm-per-prompt',
  '{"video": 1, "audio": 1}',
  // The processor cache off: with it on, a second video whose audio is byte-identical to an earlier one's fails
  // (vLLM issue #44538, open; PR #44543 names --mm-processor-cache-gb 0 as the way around). Sample and real
  // benches both hold such videos (silent or shared tracks), so the canonical launch never caches.
  '--mm-processor-cache-gb',
  '0',
  // Never --mm-processor-kwargs '{"use_audio_in_video": true}': server-wide, the engine crashes while profiling
  // or the audio is silently never fed (vLLM issue #47788); the request carries it instead (request.ts).
];
