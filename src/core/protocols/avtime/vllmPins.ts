// AVTime's two vLLM installs, each with its own pin (SPEC-AVTIME §3, §6; evidence in docs/VLLM-PINS.md).
// The target and the judge run on their own executables (--target-vllm-bin, --judge-vllm-bin, default
// VLLM_BIN); doctor and the servers stage hold what each reports against these.
import type { VllmPin } from '../../serving/vllmVersion';

/**
 * The target (Qwen3-Omni): the first release whose server extracts a video_url's own audio track when the
 * request's mm_processor_kwargs ask for it is v0.18.0 (PR #36319, commit 5578f2a, merged 2026-03-09; listed
 * in v0.18.0's release notes, absent from v0.17.0/v0.17.1). It also carries #33605 (in since v0.16.0).
 */
export const AVTIME_TARGET_VLLM_PIN: VllmPin = {
  runType: 'AVTime target',
  min: '0.18.0',
  below: null,
  rulesFrom: '0.18.0',
  why: "the first release that extracts a video's audio track for a request with use_audio_in_video (PR #36319)",
};

/** The judge (Qwen3.6-27B): its vLLM recipe asks for ≥ 0.17.0. */
export const AVTIME_JUDGE_VLLM_PIN: VllmPin = {
  runType: 'AVTime judge',
  min: '0.17.0',
  below: null,
  rulesFrom: '0.18.0',
  why: "Qwen3.6's vLLM recipe",
};

/**
 * The judge's reasoning parser: `qwen3` (vllm/reasoning/__init__.py registers it; Qwen3ReasoningParser in
 * vllm/reasoning/qwen3_reasoning_parser.py, "for the Qwen3/Qwen3.5 model family"). With it the thinking text
 * goes to message.reasoning and the JSON-schema grammar applies only after </think>.
 */
export const JUDGE_REASONING_PARSER = 'qwen3';
