// The caption pre-flight (SPEC-AVTIME-DATA §3, as AVTime-Bench's target pre-flight): before any video, the first
// clip of the run sent to each server exactly as its video will send it, plus `return_token_ids: true`; the video
// and audio placeholder tokens in the returned prompt are held against the counts predicted for that clip
// (serving/models/qwen3Omni/counts.ts: the processor's resize of the frames sent, the sidecar resampled to 16 kHz).
// A mismatch stops the run before any video, with both counts (kept in the rank's logs/preflight.json).
import type { ChatSender } from '../../runner/requestChannel';
import {
  audioTokens,
  countPlaceholders,
  processorFrameSize,
  resampledLength,
  videoTokens,
  type PlaceholderCounts,
} from '../../serving/models/qwen3Omni/counts';
import { judgePlaceholderCounts } from '../../serving/models/qwen3Omni/preflightCounts';
import { writeFileAtomic } from '../../runner/atomicFile';
import { captionFrameCount, type CaptionRequestBody, type FrameSampling } from './request';
import type { ClipMediaFacts } from '../../clips/clipProbe';

export interface ClipPrediction {
  nframes: number;
  modelSize: { height: number; width: number };
  predicted: PlaceholderCounts;
}

/** Pure: the placeholder counts the processor gives a clip sent with `sampling` and its sidecar. */
export function predictClipCounts(facts: ClipMediaFacts, sampling: FrameSampling): ClipPrediction {
  if (!facts.video || facts.videoDurationS === null) throw new Error('a clip without a video stream has no prediction');
  const nframes = captionFrameCount(facts.videoDurationS, facts.video.totalFrames, sampling);
  const modelSize = processorFrameSize(facts.video.height, facts.video.width);
  const audio = facts.audio ? audioTokens(resampledLength(facts.audio.samples, facts.audio.sampleRate)) : 0;
  return { nframes, modelSize, predicted: { video: videoTokens(nframes, modelSize.height, modelSize.width), audio } };
}

export interface PreflightServerResult {
  endpoint: string;
  clip: string;
  ok: boolean;
  predicted: PlaceholderCounts;
  got: PlaceholderCounts | null;
  problem: string | null;
}

export interface PreflightClip {
  /** Where it is, for the words: `<stem> clip N`. */
  name: string;
  body: CaptionRequestBody;
  facts: ClipMediaFacts;
}

export async function runCaptionPreflight(
  senders: readonly ChatSender<CaptionRequestBody>[],
  urls: readonly string[],
  clip: PreflightClip,
  sampling: FrameSampling,
  record: { root: string; file: string },
  signal?: AbortSignal,
): Promise<{ ok: boolean; line: string; servers: PreflightServerResult[] }> {
  const plan = predictClipCounts(clip.facts, sampling);
  const body: CaptionRequestBody = { ...clip.body, return_token_ids: true };
  const servers = await Promise.all(
    senders.map(async (s, i): Promise<PreflightServerResult> => {
      const base = { endpoint: urls[i], clip: clip.name, predicted: plan.predicted };
      const res = await s.chat(body, signal);
      if (!res.ok) return { ...base, ok: false, got: null, problem: `the server refused the pre-flight clip (${res.status ?? res.kind}): ${res.message}` };
      if (!res.promptTokenIds)
        return {
          ...base,
          ok: false,
          got: null,
          problem: 'the answer has no prompt_token_ids: the server ignored return_token_ids (a vLLM older than the pin?)',
        };
      const got = countPlaceholders(res.promptTokenIds);
      const problem = judgePlaceholderCounts(plan.predicted, got, 'sidecar', plan);
      return { ...base, ok: problem === null, got, problem };
    }),
  );
  signal?.throwIfAborted();
  const ok = servers.every((s) => s.ok);
  const recordFile = record.file;
  await writeFileAtomic(
    record.root,
    recordFile,
    JSON.stringify({ ts: new Date().toISOString(), ok, nframes: plan.nframes, model_size: plan.modelSize, servers }, null, 1) + '\n',
  );
  const parts = servers.map((s) => `${s.endpoint}: ${s.ok ? `video ${s.got!.video}, audio ${s.got!.audio} as predicted` : s.problem}`);
  return {
    ok,
    servers,
    line: `caption pre-flight ${ok ? 'ok' : 'FAILED before any video'} on ${clip.name}: ${parts.join('; ')}${ok ? '' : ` (kept in ${recordFile})`}`,
  };
}
