// Qwen3-Omni's parts of a chat request on the pinned vLLM (SPEC-AVTIME §3): the video as a file:// video_url,
// and the fields that carry audio in video and the video plan. Audio in video is asked in the request's own
// mm_processor_kwargs (vllm/entrypoints/chat_utils.py parse_video extracts the video's audio track only when the
// request's mm_processor_kwargs say use_audio_in_video, PR #36319; the server-wide --mm-processor-kwargs flag does
// not, issue #47788). The frame count and size travel per request (./videoPlan.ts). No audio_url part: that
// release refuses one beside such a video. The prompt, the decoding and the model name are the run type's.
import { pathToFileURL } from 'node:url';
import { planRequestFields, type TargetPlan } from './videoPlan';

export interface VideoUrlPart {
  type: 'video_url';
  video_url: { url: string };
}

/** The message part that names a video on the server's allowed local media path. */
export function videoUrlPart(videoPath: string): VideoUrlPart {
  if (!videoPath.startsWith('/')) throw new Error(`target video path must be absolute, got '${videoPath}'`);
  return { type: 'video_url', video_url: { url: pathToFileURL(videoPath).href } };
}

export interface VideoRequestFields {
  mm_processor_kwargs: { use_audio_in_video: boolean; videos_kwargs?: ReturnType<typeof planRequestFields>['videos_kwargs'] };
  media_io_kwargs?: ReturnType<typeof planRequestFields>['media_io_kwargs'];
}

/** The body's fields after the decoding: audio in video on or off, and the plan's frames and size when given. */
export function videoRequestFields(audioInVideo: boolean, plan?: TargetPlan): VideoRequestFields {
  const fields = plan ? planRequestFields(plan) : null;
  return {
    mm_processor_kwargs: { use_audio_in_video: audioInVideo, ...(fields ? { videos_kwargs: fields.videos_kwargs } : {}) },
    ...(fields ? { media_io_kwargs: fields.media_io_kwargs } : {}),
  };
}
