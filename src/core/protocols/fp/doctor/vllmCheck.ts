// Frames × Pixels' vLLM for doctor: VLLM_BIN (default `vllm`) against FP's pin (protocols/fp/vllmPin.ts).
import type { VllmCheck } from '../../../doctor/tools';
import { FP_VLLM_PIN } from '../vllmPin';

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
