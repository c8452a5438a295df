// The FP sweep's vLLM: the seed pins 0.11.0 (seed §2, code/requirements.txt); any 0.11.x is accepted,
// as the engine follows 0.11's rules (media paths, context checks, error wording, /health).
import type { VllmPin } from '../../serving/vllmVersion';

export const FP_VLLM_PIN: VllmPin = {
  runType: 'FP sweep',
  min: '0.11.0',
  below: '0.12.0',
  rulesFrom: '0.11.0',
  why: "the seed's code/requirements.txt pins 0.11.0",
};
