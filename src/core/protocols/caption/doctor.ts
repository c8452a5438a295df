// The caption run type's doctor hook: the vLLM that serves its request (VLLM_BIN) against the Qwen3-Omni range,
// ≥ 0.18.0 — the first release with per-request media_io_kwargs (PR #34778, commit 755356b3, after the v0.17.0
// cut; /work/prompts/vllm-caption-findings.md), which the request's frame sampling needs (request.ts).
import { checkVllms } from '../../doctor/tools';
import type { DoctorLine } from '../../doctor/schema';
import type { VllmPin } from '../../serving/vllmVersion';
import { QWEN3_OMNI_VLLM_RANGE } from '../../serving/models/qwen3Omni/vllmPin';
import type { DoctorHookOptions } from '../types';

export const CAPTION_VLLM_PIN: VllmPin = {
  ...QWEN3_OMNI_VLLM_RANGE,
  runType: 'caption',
  why: 'the first release with per-request media_io_kwargs (PR #34778), which sets the frames of each clip',
};

export async function captionDoctorLines(_root: string | null, opts: DoctorHookOptions): Promise<DoctorLine[]> {
  const install = `pip install 'vllm>=${CAPTION_VLLM_PIN.min}' in its own environment`;
  return checkVllms(
    [
      {
        id: 'vllm_caption',
        bin: opts.env.VLLM_BIN || 'vllm',
        binFrom: 'VLLM_BIN',
        pin: CAPTION_VLLM_PIN,
        missing: 'warn',
        install,
        installMissing: `${install} (${CAPTION_VLLM_PIN.why})`,
      },
    ],
    opts.vllmVersion,
  );
}
