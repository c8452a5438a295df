// The one target chat request of AVTime-Bench (SPEC-AVTIME §3): the video as a file:// video_url, then the
// frozen target prompt; the seed's canonical decoding; audio in video on unless --no-audio-in-video.
import { pathToFileURL } from 'node:url';
import { TARGET_DECODING } from '../constants';

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
  mm_processor_kwargs: { use_audio_in_video: boolean };
}

export function buildTargetRequest(model: string, videoPath: string, prompt: string, audioInVideo: boolean): TargetRequestBody {
  if (!videoPath.startsWith('/')) throw new Error(`target video path must be absolute, got '${videoPath}'`);
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
    mm_processor_kwargs: { use_audio_in_video: audioInVideo },
  };
}
