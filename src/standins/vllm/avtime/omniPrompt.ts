// The stand-in target's prompt as the pinned vLLM (v0.18.0, the first release with PR #36319) builds it for a Qwen3-Omni
// video request: which frames its loader takes, the processor's one resize, whether the audio track is fed,
// and the prompt token ids it returns with `return_token_ids`. Each rule names the file or issue it plays.
import { createHash } from 'node:crypto';
import * as msg from '../../../core/serving/vllmMessages';
import {
  audioTokens,
  OMNI_AUDIO_TOKEN_ID,
  OMNI_MAX_PIXELS,
  OMNI_MIN_PIXELS,
  OMNI_VIDEO_TOKEN_ID,
  processorFrameSize,
  resampledLength,
  videoTokens,
} from '../../../core/serving/models/qwen3Omni/counts';
import { RequestRefusal } from '../request';
import type { ServeArgs } from '../args';
import type { ParsedAvtimeChat } from './body';
import type { TargetKnobs } from './knobs';
import type { ProbedMedia } from './video';

/** vllm/multimodal/media/video.py VideoMediaIO.__init__: `num_frames: int = 32`. */
export const VLLM_DEFAULT_NUM_FRAMES = 32;
/** config.json thinker_config audio_start_token_id / audio_end_token_id. */
const AUDIO_START_ID = 151669;
const AUDIO_END_ID = 151670;

export interface OmniVideoPrompt {
  frames: number;
  height: number;
  width: number;
  videoTokens: number;
  audioTokens: number;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const obj = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

/**
 * Frames the loader takes: VideoMediaIO merges the request's media_io_kwargs over --media-io-kwargs (a runtime
 * num_frames without fps drops the default fps), then vllm/multimodal/video.py samples `min(num_frames, total)`
 * (all when -1), capped at floor(duration·fps) when an fps is set. Knob noMediaIoKwargs: a release without the
 * runtime field (only the server's flag and the default 32 count).
 */
export function loaderFrames(
  v: ProbedMedia,
  parsed: ParsedAvtimeChat,
  args: Pick<ServeArgs, 'mediaIoKwargs'>,
  knobs: Pick<TargetKnobs, 'noMediaIoKwargs'>,
): number {
  const server = obj(args.mediaIoKwargs?.video) ?? {};
  const runtime = knobs.noMediaIoKwargs ? {} : (obj(parsed.body.media_io_kwargs?.video) ?? {});
  const merged: Record<string, unknown> = { ...server, ...runtime };
  if ('num_frames' in runtime && !('fps' in runtime)) delete merged.fps;
  else if ('fps' in runtime && !('num_frames' in runtime)) delete merged.num_frames;
  const n = num(merged.num_frames) ?? VLLM_DEFAULT_NUM_FRAMES;
  if (n === 0) throw new RequestRefusal(400, msg.preprocessingMessage('num_frames must be greater than 0 or -1'));
  let take = n > 0 ? Math.min(n, v.totalFrames) : v.totalFrames;
  const fps = num(merged.fps);
  if (fps !== undefined && fps > 0) take = Math.min(take, Math.floor(v.durationS * fps));
  return Math.max(1, take);
}

/**
 * The HF processor's one resize (transformers Qwen2VLVideoProcessor, factor 32): the request's videos_kwargs
 * min_pixels/max_pixels, else its size {shortest_edge, longest_edge}, else Qwen3OmniMoeProcessorKwargs' defaults.
 */
export function processorSize(v: ProbedMedia, parsed: ParsedAvtimeChat): { height: number; width: number } {
  const vk = obj(obj(parsed.body.mm_processor_kwargs)?.videos_kwargs);
  const size = obj(vk?.size);
  const min = num(vk?.min_pixels) ?? num(size?.shortest_edge) ?? OMNI_MIN_PIXELS;
  return processorFrameSize(v.height, v.width, min, num(vk?.max_pixels) ?? num(size?.longest_edge) ?? OMNI_MAX_PIXELS);
}

/** The processor cache (#44538): audio content hash → the video it came with, while the cache is on. */
const audioSeen = new Map<string, string>();

/**
 * Refusals and the fed audio. vllm/entrypoints/chat_utils.py parse_video (PR #36319) extracts the track only when
 * the REQUEST's mm_processor_kwargs say use_audio_in_video.
 */
export async function omniVideoPrompt(
  v: ProbedMedia,
  parsed: ParsedAvtimeChat,
  args: Pick<ServeArgs, 'mediaIoKwargs' | 'mmProcessorKwargs' | 'mmProcessorCacheGb'>,
  knobs: TargetKnobs,
  audioHash: (v: ProbedMedia) => Promise<string>,
): Promise<OmniVideoPrompt> {
  const serverWide = knobs.serverWideAudioFlag === 1 || args.mmProcessorKwargs?.use_audio_in_video === true;
  let audio = 0;
  if (parsed.useAudioInVideo) {
    // A request with an audio_url part goes to the caption role (./caption.ts), which refuses one beside the track.
    const hasAudio = v.hasAudio && knobs.noAudioStream !== 1;
    if (!hasAudio) throw new RequestRefusal(400, msg.preprocessingMessage(`use_audio_in_video is true but ${v.path} has no audio stream`));
    // vLLM issue #47788 (0.20.2, open): with --mm-processor-kwargs '{"use_audio_in_video": true}' on the server the
    // engine crashes while profiling, or the audio is silently never fed. The stand-in plays the second, which only
    // the pre-flight's token count can see.
    if (!serverWide) {
      if ((args.mmProcessorCacheGb ?? 4) > 0) {
        // vLLM issue #44538: with the processor cache on, a second video whose audio is byte-identical to an earlier
        // one's hits the cache for the audio only, and the processor fails (StopIteration → HTTP 400).
        const h = await audioHash(v);
        const before = audioSeen.get(h);
        if (before !== undefined && before !== v.resolved) {
          throw new RequestRefusal(400, msg.preprocessingMessage("Failed to apply Qwen3OmniMoeProcessor on data={'text': '<|video_pad|>', 'videos': [...]}"));
        }
        audioSeen.set(h, v.resolved);
      }
      audio = audioTokens(resampledLength(v.audio!.samples, v.audio!.sampleRate));
    }
  }
  const frames = loaderFrames(v, parsed, args, knobs);
  const { height, width } = processorSize(v, parsed);
  return { frames, height, width, videoTokens: videoTokens(frames, height, width), audioTokens: audio };
}

/** md5 of the audio stream's packets (byte-identical tracks hash alike), via ffmpeg. */
export async function audioPacketHash(v: ProbedMedia): Promise<string> {
  const { execa } = await import('execa');
  const ffmpeg = process.env.FFMPEG_BIN || 'ffmpeg';
  const r = await execa(ffmpeg, ['-v', 'error', '-i', v.resolved, '-map', '0:a:0', '-c', 'copy', '-f', 'md5', '-'], { reject: false });
  if (r.failed) return createHash('sha256').update(`unreadable:${v.resolved}`).digest('hex');
  return String(r.stdout).trim();
}

/**
 * Prompt token ids like the model's: template and text ids (stand-in numbers below the special range) and, per
 * video, the placeholder block of get_updates_use_audio_in_video (qwen3_omni_moe_thinker.py): <|audio_start|>,
 * the video and audio placeholders, <|audio_end|>. The order inside the block is not modelled, only the counts.
 */
export function promptTokenIds(textTokens: number, videos: readonly OmniVideoPrompt[]): number[] {
  const ids: number[] = [];
  for (let i = 0; i < 12; i++) ids.push(1000 + i);
  for (const v of videos) {
    ids.push(AUDIO_START_ID);
    for (let i = 0; i < v.videoTokens; i++) ids.push(OMNI_VIDEO_TOKEN_ID);
    for (let i = 0; i < v.audioTokens; i++) ids.push(OMNI_AUDIO_TOKEN_ID);
    ids.push(AUDIO_END_ID);
  }
  for (let i = 0; i < textTokens + 6; i++) ids.push(2000 + (i % 5000));
  return ids;
}
