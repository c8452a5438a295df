// The pre-flight's judgement, for any run type that serves Qwen3-Omni (AVTime-Bench's target, the caption run):
// the video and audio placeholder counts a server gave a real request (its `prompt_token_ids`, return_token_ids)
// against the counts predicted for that file (counts.ts). Pure; the words say what a mismatch means.
import type { PlaceholderCounts } from './counts';

/** Where the request's audio comes from: the video's own track (use_audio_in_video), a separate audio_url, or none. */
export type PreflightAudio = 'in-video' | 'sidecar' | 'none';

/** What is wrong with the server's counts, in words, or null when they are the predicted ones. */
export function judgePlaceholderCounts(
  predicted: PlaceholderCounts,
  got: PlaceholderCounts,
  audio: PreflightAudio,
  plan?: { nframes: number; modelSize: { height: number; width: number }; serverPixels?: unknown },
): string | null {
  const problems: string[] = [];
  if (audio === 'in-video' && got.audio === 0) {
    problems.push(
      `no audio placeholder token at all (reference: ${predicted.audio}): the server never fed the video's audio track — ` +
        'a server-wide --mm-processor-kwargs use_audio_in_video flag (vLLM issue #47788) or a vLLM without online audio-in-video (PR #36319)',
    );
  } else if (got.audio !== predicted.audio) {
    const why = audio === 'none' ? ' (audio in video is off, yet the server fed audio)' : audio === 'sidecar' ? ' (the audio_url sidecar)' : '';
    problems.push(`audio placeholder tokens: server ${got.audio}, reference ${predicted.audio}: the server decoded another length of the audio track${why}`);
  }
  if (got.video !== predicted.video) {
    const what = plan ? `${plan.nframes} frames of ${plan.modelSize.width}x${plan.modelSize.height}` : 'the reference frames';
    problems.push(
      `video placeholder tokens: server ${got.video}, reference ${predicted.video} (${what}): the server sampled other frames or another size ` +
        (plan?.serverPixels === null
          ? ` — no pixel bounds make the server's one resize of this file reach ${plan.modelSize.width}x${plan.modelSize.height} (docs/AVTIME-PREPROCESSING.md)`
          : "(vLLM's default is 32 uniform frames; the request's media_io_kwargs.video.num_frames or mm_processor_kwargs.videos_kwargs were not taken)"),
    );
  }
  return problems.length ? problems.join('; ') : null;
}
