// The one target chat request of AVTime-Bench (SPEC-AVTIME §3): the video as a file:// video_url, then the
// frozen target prompt; the seed's canonical decoding; audio in video on unless --no-audio-in-video, asked in
// the request's own mm_processor_kwargs (vllm/entrypoints/chat_utils.py parse_video extracts the video's
// audio track only when the request's mm_processor_kwargs say use_audio_in_video, PR #36319; the server-wide
// --mm-processor-kwargs flag does not, issue #47788). The reference's frame count and size travel per request
// (../reference/targetPlan.ts). No audio_url part: that release refuses one beside such a video.
import { pathToFileURL } from 'node:url';
import { TARGET_DECODING } from '../constants';
import { planRequestFields, type TargetPlan } from '../reference/targetPlan';

export const TARGET_MAX_MODEL_LEN = 65536;

export interface TargetRequestBody {
  model: string;
  messages: [{ role: 'user'; content: [{ type: 'video_url'; video_url: { url: string } }, { type: 'text'; text: string }] }];
  temperature: number;
  top_p: number;
  top_k: number;
  repetition_penalty: number;
  max_tokens: number;
  seed: number;
  mm_processor_kwargs: { use_audio_in_video: boolean; videos_kwargs?: ReturnType<typeof planRequestFields>['videos_kwargs'] };
  media_io_kwargs?: ReturnType<typeof planRequestFields>['media_io_kwargs'];
  /** The pre-flight only: vLLM returns `prompt_token_ids` with the answer. */
  return_token_ids?: true;
}

export function buildTargetRequest(model: string, videoPath: string, prompt: string, audioInVideo: boolean, plan?: TargetPlan): TargetRequestBody {
  if (!videoPath.startsWith('/')) throw new Error(`target video path must be absolute, got '${videoPath}'`);
  const fields = plan ? planRequestFields(plan) : null;
  return {
    model,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'video_url', video_url: { url: pathToFileURL(videoPath).href } },
          { type: 'text', text: prompt },
        ],
      },
    ],
    ...TARGET_DECODING,
    mm_processor_kwargs: { use_audio_in_video: audioInVideo, ...(fields ? { videos_kwargs: fields.videos_kwargs } : {}) },
    ...(fields ? { media_io_kwargs: fields.media_io_kwargs } : {}),
  };
}
