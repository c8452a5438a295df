// The one target chat request of AVTime-Bench (SPEC-AVTIME §3): the video (Qwen3-Omni's part), then the frozen
// target prompt; the seed's canonical decoding; audio in video on unless --no-audio-in-video, and the reference's
// frame count and size, in Qwen3-Omni's request fields (serving/models/qwen3Omni/request.ts).
import { TARGET_DECODING } from '../constants';
import { videoRequestFields, videoUrlPart, type VideoRequestFields, type VideoUrlPart } from '../../../serving/models/qwen3Omni/request';
import type { TargetPlan } from '../../../serving/models/qwen3Omni/videoPlan';

export const TARGET_MAX_MODEL_LEN = 65536;

export interface TargetRequestBody extends VideoRequestFields {
  model: string;
  messages: [{ role: 'user'; content: [VideoUrlPart, { type: 'text'; text: string }] }];
  temperature: number;
  top_p: number;
  top_k: number;
  repetition_penalty: number;
  max_tokens: number;
  seed: number;
  /** The pre-flight only: vLLM returns `prompt_token_ids` with the answer. */
  return_token_ids?: true;
}

export function buildTargetRequest(model: string, videoPath: string, prompt: string, audioInVideo: boolean, plan?: TargetPlan): TargetRequestBody {
  return {
    model,
    messages: [{ role: 'user', content: [videoUrlPart(videoPath), { type: 'text', text: prompt }] }],
    ...TARGET_DECODING,
    ...videoRequestFields(audioInVideo, plan),
  };
}
