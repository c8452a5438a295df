// What differs between the target's and the judge's servers: the vLLM pin each must report, the context
// each is launched with, the launch flags only one needs, and the advice when the context does not fit.
import type { VllmPin } from '../../../serving/vllmVersion';
import { AVTIME_JUDGE_VLLM_PIN, AVTIME_TARGET_VLLM_PIN, JUDGE_REASONING_PARSER } from '../vllmPins';
import { JUDGE_MAX_MODEL_LEN } from '../judge/context';
import { TARGET_MAX_MODEL_LEN } from './targetRequest';
import { QWEN3_OMNI_SERVE_FLAGS } from '../../../serving/models/qwen3Omni/serveFlags';

/** The two kinds of server a run starts. */
export type ServerRole = 'target' | 'judge';

export interface RoleLaunch {
  pin: VllmPin;
  maxModelLen: number;
  /** Flags after --max-model-len (and the target's media path). */
  extraArgs: string[];
  contextAdvice: string;
  /** The flag naming this role's executable. */
  binFlag: string;
}

export function roleLaunch(role: ServerRole): RoleLaunch {
  if (role === 'target') {
    return {
      pin: AVTIME_TARGET_VLLM_PIN,
      maxModelLen: TARGET_MAX_MODEL_LEN,
      extraArgs: [...QWEN3_OMNI_SERVE_FLAGS],
      contextAdvice: 'The context is fixed by the protocol and is never lowered: use more GPUs per group (--target-tp) or free their memory.',
      binFlag: '--target-vllm-bin',
    };
  }
  return {
    pin: AVTIME_JUDGE_VLLM_PIN,
    maxModelLen: JUDGE_MAX_MODEL_LEN,
    // Qwen3.6's thinking goes to message.reasoning and the JSON schema applies after </think> (docs/VLLM-PINS.md).
    extraArgs: ['--reasoning-parser', JUDGE_REASONING_PARSER],
    contextAdvice:
      `The judge's context (${JUDGE_MAX_MODEL_LEN} tokens: its longest prompt plus the retry pass's 4,096) is never lowered: ` +
      'use more GPUs for the judge (--judge-gpus, --judge-tp) or free their memory.',
    binFlag: '--judge-vllm-bin',
  };
}
