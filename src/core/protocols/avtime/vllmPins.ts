// AVTime's two vLLM installs, each with its own pin (SPEC-AVTIME §3, §6; evidence in docs/VLLM-PINS.md).
// The target and the judge run on their own executables (--target-vllm-bin, --judge-vllm-bin, default
// VLLM_BIN); doctor and the servers stage hold what each reports against these.
import type { VllmPin } from '../../serving/vllmVersion';
import { QWEN3_OMNI_VLLM_RANGE } from '../../serving/models/qwen3Omni/vllmPin';

/** The target (Qwen3-Omni): the model's range (serving/models/qwen3Omni/vllmPin.ts). */
export const AVTIME_TARGET_VLLM_PIN: VllmPin = { runType: 'AVTime target', ...QWEN3_OMNI_VLLM_RANGE };

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
