// AVTime-Bench's doctor hook: the target's and the judge's vLLM executables, each against its own pin (vllmPins.ts).
import { checkVllms, type VllmCheck } from '../../../doctor/tools';
import type { DoctorLine } from '../../../doctor/schema';
import type { DoctorHookOptions } from '../../types';
import type { VllmPin } from '../../../serving/vllmVersion';
import { AVTIME_JUDGE_VLLM_PIN, AVTIME_TARGET_VLLM_PIN } from '../vllmPins';

/** An AVTime role's executable: a missing or off-pin one warns (an FP-only host passes doctor; the run refuses). */
function avtimeCheck(role: 'target' | 'judge', bin: string, pin: VllmPin): VllmCheck {
  const install = `pip install 'vllm>=${pin.min}' in its own environment`;
  return {
    id: `vllm_avtime_${role}`,
    bin,
    binFrom: `--${role}-vllm-bin (${role.toUpperCase()}_VLLM_BIN)`,
    pin,
    missing: 'warn',
    install,
    installMissing: `${install} (${pin.why})`,
  };
}

/** The target's and the judge's executables: TARGET_VLLM_BIN and JUDGE_VLLM_BIN, each else `base` (VLLM_BIN's). */
export function avtimeVllmChecks(env: NodeJS.ProcessEnv, base: string): VllmCheck[] {
  return [avtimeCheck('target', env.TARGET_VLLM_BIN || base, AVTIME_TARGET_VLLM_PIN), avtimeCheck('judge', env.JUDGE_VLLM_BIN || base, AVTIME_JUDGE_VLLM_PIN)];
}

/** AVTime's doctor lines: its two executables against their pins (it checks no folder). */
export async function avtimeDoctorLines(_root: string | null, opts: DoctorHookOptions): Promise<DoctorLine[]> {
  return checkVllms(avtimeVllmChecks(opts.env, opts.env.VLLM_BIN || 'vllm'), opts.vllmVersion);
}
