// The caption role of the stand-in target (issue 25, SPEC-AVTIME-DATA §3): a Qwen3-Omni request with a video_url,
// an audio_url (the clip's mp3 sidecar) and text, answered the way the pinned vLLM (v0.18.0) would. Each rule names
// the vLLM file it plays, as read near v0.18.0 (/work/prompts/vllm-caption-findings.md; v0.18.0's tag itself could not
// be read, docs/VLLM-PINS.md):
// - vllm/entrypoints/chat_utils.py: each part is added to the item tracker in content order, and parse_video adds a
//   second audio item, fetched from the video itself, when the request's mm_processor_kwargs.use_audio_in_video is
//   true (#36319); BaseMultiModalItemTracker.add checks each count (vllm/multimodal/processing.py
//   validate_num_items: "At most N audio(s) may be provided in one prompt.", no hint: Qwen3-Omni declares no limit).
// - vllm/entrypoints/openai/protocol.py OpenAIBaseModel (extra="allow"): a release without the field ignores
//   media_io_kwargs with a warning ("The following fields were present in the request but ignored"); the field
//   came with #34778, first released in v0.18.0. Such a server's loader takes its own 32 frames.
// - vllm/multimodal/utils.py (media/connector.py) _load_file_url: the file under --allowed-local-media-path.
// - qwen3_omni_moe_thinker.py _derive_audio_from_video_placeholders: use_audio_in_video needs as many audio items as
//   video items ("use_audio_in_video requires equal number of audio and video items, got num_audios=…").
// - v1/engine/processor.py: a prompt longer than --max-model-len is refused (../model.ts).
// Errors in chat preprocessing come back as 400 "{e} {e.__cause__}" (serving_chat.py), hence the " None".
import { fileURLToPath } from 'node:url';
import { OMNI_AUDIO_TOKEN_ID, OMNI_VIDEO_TOKEN_ID, audioTokens, resampledLength, videoTokens } from '../../../core/serving/models/qwen3Omni/counts';
import { parseVllmVersion } from '../../../core/serving/vllmVersion';
import * as msg from '../../../core/serving/vllmMessages';
import type { ServeArgs } from '../args';
import { logLine } from '../log';
import { RequestRefusal } from '../request';
import { loadAudio } from './audio';
import type { ParsedAvtimeChat } from './body';
import type { CaptionKnobs } from './captionKnobs';
import { captionEvents, captionGenerated, captionJson, captionProse } from './captionReply';
import { loaderFrames, processorSize } from './omniPrompt';
import { textTokens } from './random';
import { loadVideo } from './video';

/** config.json thinker_config: vision_start/vision_end and audio_start/audio_end token ids. */
const VISION_START_ID = 151652;
const VISION_END_ID = 151653;
const AUDIO_START_ID = 151669;
const AUDIO_END_ID = 151670;

/** One server's caption faults: how often each clip was answered 503, which clips already had their bad first answer. */
export interface CaptionState {
  knobs: CaptionKnobs;
  unavailableCount: Map<string, number>;
  answered: Set<string>;
}

export const captionState = (knobs: CaptionKnobs): CaptionState => ({ knobs, unavailableCount: new Map(), answered: new Set() });

export interface CaptionAnswer {
  /** The whole generated text, `<think>…</think>` included. */
  text: string;
  promptTokens: number;
  promptTokenIds: number[] | null;
}

/** A caption request: has an audio_url part (the AVTime-Bench target request never does). */
export const isCaptionRequest = (parsed: ParsedAvtimeChat) => parsed.audioUrls.length > 0;

/** The items the chat parser adds, in content order, each checked against --limit-mm-per-prompt as it is added. */
function checkItemCounts(parsed: ParsedAvtimeChat, args: Pick<ServeArgs, 'limitVideos' | 'limitAudios'>): void {
  const n = { video: 0, audio: 0 };
  const add = (modality: 'video' | 'audio') => {
    const limit = modality === 'video' ? args.limitVideos : args.limitAudios;
    if (++n[modality] > limit) throw new RequestRefusal(400, msg.preprocessingMessage(msg.tooManyItems(limit, modality)));
  };
  for (const m of parsed.body.messages) {
    if (typeof m.content === 'string') continue;
    for (const p of m.content) {
      if (p.type === 'video_url') {
        add('video');
        if (parsed.useAudioInVideo) add('audio');
      } else if (p.type === 'audio_url') add('audio');
    }
  }
  if (n.video !== 1) throw new RequestRefusal(400, `stand-in vLLM: the caption role takes one video_url beside its audio_url, got ${n.video}`);
}

/** Below v0.18.0 the request's media_io_kwargs is an unknown field: ignored, with protocol.py's warning. */
function mediaIoKwargsHonoured(parsed: ParsedAvtimeChat, release: string): boolean {
  const v = parseVllmVersion(release);
  const known = v !== null && (v[0] > 0 || v[1] >= 18);
  if (!known && parsed.body.media_io_kwargs !== undefined && parsed.body.media_io_kwargs !== null) {
    logLine('WARNING', 'protocol.py:83', "The following fields were present in the request but ignored: {'media_io_kwargs'}", process.stderr);
  }
  return known;
}

/** The path a file:// URL names (the faults' and the answer's key); the URL itself when it names none. */
function clipPathOf(url: string): string {
  try {
    return fileURLToPath(url);
  } catch {
    return url;
  }
}

/** Faults by the clip's path (../README.md): 400 always, 503 the first times. */
function applyFaults(clip: string, state: CaptionState): void {
  const k = state.knobs;
  if (k.refuse?.test(clip)) throw new RequestRefusal(400, `Bad request (stand-in fault: ${clip} matches FPSWEEP_STANDIN_CAPTION_400)`);
  if (k.unavailable?.test(clip)) {
    const seen = state.unavailableCount.get(clip) ?? 0;
    if (seen < k.times503) {
      state.unavailableCount.set(clip, seen + 1);
      throw new RequestRefusal(503, `Service Unavailable (stand-in fault: ${clip} answered 503 ${seen + 1} of ${k.times503} times)`, 'ServiceUnavailableError');
    }
  }
}

export async function captionAnswer(
  parsed: ParsedAvtimeChat,
  args: Pick<ServeArgs, 'allowedLocalMediaPath' | 'mediaIoKwargs' | 'limitVideos' | 'limitAudios'>,
  state: CaptionState,
  release: string,
): Promise<CaptionAnswer> {
  checkItemCounts(parsed, args);
  applyFaults(clipPathOf(parsed.videoUrls[0]), state);
  const video = await loadVideo(parsed.videoUrls[0], args.allowedLocalMediaPath);
  const honoured = mediaIoKwargsHonoured(parsed, release);
  const audio = await loadAudio(parsed.audioUrls[0], args.allowedLocalMediaPath);
  if (parsed.useAudioInVideo) {
    // Reached only when --limit-mm-per-prompt lets two audio items through (the track and the sidecar).
    const why = `use_audio_in_video requires equal number of audio and video items, got num_audios=${parsed.audioUrls.length + 1}, num_videos=1`;
    throw new RequestRefusal(400, msg.preprocessingMessage(why));
  }
  const frames = loaderFrames(video, parsed, args, { noMediaIoKwargs: honoured ? 0 : 1 });
  const size = processorSize(video, parsed);
  const vTokens = videoTokens(frames, size.height, size.width);
  const aTokens = audioTokens(resampledLength(audio.samples, audio.sampleRate));
  const ids = captionPromptIds(vTokens, aTokens, textTokens(parsed.promptText).length);
  const events = captionEvents(video.path, parsed.promptText, video.durationS, state.knobs.minEvents, state.knobs.maxEvents);
  const firstBad = state.knobs.notJsonFirst?.test(video.path) && !state.answered.has(video.path);
  state.answered.add(video.path);
  const answer = firstBad ? captionProse(events) : captionJson(video.path, parsed.promptText, events);
  return { text: captionGenerated(video.path, parsed.promptText, answer), promptTokens: ids.length, promptTokenIds: parsed.body.return_token_ids ? ids : null };
}

/**
 * The prompt's ids: template ids, <|vision_start|> video placeholders <|vision_end|>, <|audio_start|> audio
 * placeholders <|audio_end|> (the content parts' order; qwen3_omni_moe_thinker.py get_placeholder_str), the text.
 */
export function captionPromptIds(video: number, audio: number, text: number): number[] {
  const ids: number[] = [];
  for (let i = 0; i < 12; i++) ids.push(1000 + i);
  ids.push(VISION_START_ID);
  for (let i = 0; i < video; i++) ids.push(OMNI_VIDEO_TOKEN_ID);
  ids.push(VISION_END_ID, AUDIO_START_ID);
  for (let i = 0; i < audio; i++) ids.push(OMNI_AUDIO_TOKEN_ID);
  ids.push(AUDIO_END_ID);
  for (let i = 0; i < text + 6; i++) ids.push(2000 + (i % 5000));
  return ids;
}

/** With a reasoning parser the text before </think> is message.reasoning, the rest content (vllm/reasoning/qwen3_reasoning_parser.py). */
export function splitReasoning(text: string, parser: string | null): { content: string; reasoning: string | null } {
  if (parser === null) return { content: text, reasoning: null };
  const end = text.indexOf('</think>');
  if (end < 0) return { content: '', reasoning: text.replace(/^<think>\n?/, '') };
  return {
    content: text.slice(end + '</think>'.length).replace(/^\n+/, ''),
    reasoning: text
      .slice(0, end)
      .replace(/^<think>\n?/, '')
      .replace(/\n+$/, ''),
  };
}
