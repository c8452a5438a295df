// Frames × Pixels' vLLM for doctor: VLLM_BIN (default `vllm`) against FP's pin (protocols/fp/vllmPin.ts).
import { pinAccepts } from '../../../serving/vllmVersion';
import type { VllmCheck } from '../../../doctor/tools';
import { FP_VLLM_PIN } from '../vllmPin';

/** The vLLM the seed pins for the FP sweep (seed §2, code/requirements.txt). */
export const EXPECTED_VLLM = FP_VLLM_PIN.min;

/** 0.11.x, with or without a local suffix (0.11.0+cu128, 0.11.1rc1). */
export function isVllm011(version: string): boolean {
  return pinAccepts(FP_VLLM_PIN, version);
}

/** FP's executable (`bin`: VLLM_BIN, else `vllm`): a missing one fails, FP being the default run type. */
export function fpVllmCheck(bin: string): VllmCheck {
  return {
    id: 'vllm',
    bin,
    binFrom: 'VLLM_BIN',
    pin: FP_VLLM_PIN,
    missing: 'fail',
    install: `pip install vllm==${FP_VLLM_PIN.rulesFrom}`,
    installMissing: `pip install -r code/requirements.txt (vllm ${FP_VLLM_PIN.rulesFrom})`,
  };
}
