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

export interface AudioUrlPart {
  type: 'audio_url';
  audio_url: { url: string };
}

/**
 * An audio file as its own part, for a request whose video's own track is not used (use_audio_in_video false):
 * chat_utils.py parse_audio adds it as the prompt's one audio item, parse_video adds none from the video
 * (read in copies of that file near v0.18.0, not at its tag).
 */
export function audioUrlPart(audioPath: string): AudioUrlPart {
  if (!audioPath.startsWith('/')) throw new Error(`audio path must be absolute, got '${audioPath}'`);
  return { type: 'audio_url', audio_url: { url: pathToFileURL(audioPath).href } };
}
