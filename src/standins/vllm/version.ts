// The vLLM release a stand-in server plays, per role: the FP sweep's 0.11.0, and for the AVTime target and
// judge the release their rules follow (docs/VLLM-PINS.md). FPSWEEP_STANDIN_VERSION makes any server play
// another release (tests show a server outside its pin being refused). It is what `--version` prints and
// what GET /version answers, as vLLM's `show_version` ({"version": VLLM_VERSION}; vllm/entrypoints/openai/
// api_server.py in 0.11.0, vllm/entrypoints/serve/instrumentator/basic.py in later releases).
import { FP_VLLM_PIN } from '../../core/protocols/fp/vllmPin';
import { AVTIME_JUDGE_VLLM_PIN, AVTIME_TARGET_VLLM_PIN } from '../../core/protocols/avtime/vllmPins';
import type { StandinRole } from './avtime/knobs';

export const ROLE_RELEASE: Readonly<Record<StandinRole, string>> = {
  fp: FP_VLLM_PIN.rulesFrom,
  target: AVTIME_TARGET_VLLM_PIN.rulesFrom,
  judge: AVTIME_JUDGE_VLLM_PIN.rulesFrom,
};

/** The release to report: FPSWEEP_STANDIN_VERSION, else the role's (`--version` alone knows no model: FPSWEEP_STANDIN_ROLE, else fp). */
export function standinVersion(role: StandinRole, env: NodeJS.ProcessEnv = process.env): string {
  return env.FPSWEEP_STANDIN_VERSION || ROLE_RELEASE[role];
}
