// The vLLM releases Qwen3-Omni with the audio of its video needs (SPEC-AVTIME §3, §6; evidence in
// docs/VLLM-PINS.md). A run type names what runs on it (`runType`) and holds its servers against the rest.
import type { VllmPin } from '../../vllmVersion';

/**
 * The first release whose server extracts a video_url's own audio track when the request's mm_processor_kwargs
 * ask for it is v0.18.0 (PR #36319, commit 5578f2a, merged 2026-03-09; listed in v0.18.0's release notes, absent
 * from v0.17.0/v0.17.1). It also carries #33605 (in since v0.16.0).
 */
export const QWEN3_OMNI_VLLM_RANGE: Omit<VllmPin, 'runType'> = {
  min: '0.18.0',
  below: null,
  rulesFrom: '0.18.0',
  why: "the first release that extracts a video's audio track for a request with use_audio_in_video (PR #36319)",
};
