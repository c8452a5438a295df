// Pre-flight: before any sweep work, one real unit of the plan goes to each server, built exactly as the
// sweep builds it (unitRequestBody, frames prepared by the same FrameSource: file:// URLs for launched
// servers, data: URLs for --endpoints, the planned count and size). The answer must carry
// usage.prompt_tokens, show that the images were taken (prompt tokens near the prediction) and end with
// a finish reason vLLM gives for a normal answer. Any failure stops the run before its first row.
// The answer is not a result row: the sweep asks that unit again on its own server (one writer, one
// path for rows); the pre-flight's outcome goes to logs/preflight.json, which the pilot report shows.
import { writeFileAtomic } from '../../../runner/atomicFile';
import { promises as fs } from 'node:fs';
import type { PackageLayout } from '../package/layout';
import { unitKey } from '../package/unitKey';
import { loadVideoFramePlans, type VideoWork, type WorkUnit } from '../plan';
import type { ChatResult, VllmClient } from '../../../serving/client';
import type { FrameRef } from '../../../serving/chatRequest';
import type { FrameSource } from './frameSource';
import { fpAdviseFailure } from './fpAdvice';
import { preflightRecordSchema, type PreflightRecord, type PreflightServer, type PreflightUnit } from './preflightSchema';
import { unitRequestBody } from './unitRequest';
import { parseBoundedJson } from '../../../io/boundedJson';

/** Finish reasons of a normal answer (vLLM 0.11's OpenAI layer: the stop string/EOS, or max_tokens reached). */
export const KNOWN_FINISH_REASONS = ['stop', 'length'] as const;
/** Videos tried for a probe whose frames can be made (a bad video is data, not the setup). */
const PROBE_VIDEOS = 5;

export interface Probe {
  unit: WorkUnit;
  images: FrameRef[];
  info: PreflightUnit;
  release(): void;
}

/** Checks one answer (pure): the problem in words, or null when the server is ready for the sweep. */
export function checkPreflightAnswer(res: ChatResult, info: Pick<PreflightUnit, 'n_frames' | 'predicted_prompt_tokens'>): string | null {
  if (!res.ok) return res.message;
  const p = res.usage?.prompt_tokens;
  if (!Number.isInteger(p) || p <= 0) return `the answer has no usage.prompt_tokens (got ${JSON.stringify(p)})`;
  if (info.n_frames > 0) {
    // Images dropped or refused silently leave a text-sized prompt; the prediction is close (SPEC §2.5).
    const floor = info.predicted_prompt_tokens !== null ? Math.floor(info.predicted_prompt_tokens / 2) : info.n_frames;
    if (p < floor) {
      return (
        `usage.prompt_tokens ${p} is far below the ${info.predicted_prompt_tokens ?? '?'} predicted for ${info.n_frames} image(s): ` +
        'the server did not take the images'
      );
    }
  }
  if (!(KNOWN_FINISH_REASONS as readonly string[]).includes(res.finishReason ?? '')) {
    return `finish_reason ${JSON.stringify(res.finishReason)} is not one of ${KNOWN_FINISH_REASONS.join(', ')}`;
  }
  return null;
}

/**
 * The first todo unit with frames (not a predicted context refusal), its frames made as the sweep makes
 * them; a text-only unit when the plan has no frames at all. Null when there is nothing to send.
 */
export async function buildProbe(
  layout: PackageLayout,
  videos: readonly VideoWork[],
  frames: FrameSource,
): Promise<{ probe: Probe | null; problem: string | null; interrupted?: string }> {
  const sendable = (u: WorkUnit) => u.status === 'todo' && !u.contextRefusal;
  const withFrames = videos.filter((v) => v.units.some((u) => sendable(u) && (u.nFrames ?? 0) > 0));
  const candidates = withFrames.length ? withFrames : videos.filter((v) => v.units.some(sendable));
  let problem: string | null = null;
  for (const video of candidates.slice(0, PROBE_VIDEOS)) {
    const unit = video.units.find((u) => sendable(u) && (withFrames.length === 0 || (u.nFrames ?? 0) > 0))!;
    const fp = await loadVideoFramePlans(layout, video);
    if (fp.kind !== 'ok') {
      problem = fp.message;
      continue;
    }
    const plan = fp.plans.get(unit.condition)!;
    const key = unitKey(unit.benchmark, unit.item.item_id, unit.condition);
    const prepared = await frames.prepare(video.hash, fp.meta, [{ key, plan }]);
    const r = prepared.get(key);
    if (!r.ok) {
      prepared.release();
      // ffmpeg stopped by a signal from outside: the run is being stopped, no other video is tried (issue 43).
      if (r.kind === 'interrupted') return { probe: null, problem: null, interrupted: r.message };
      problem = `${r.kind}: ${r.message}`;
      continue;
    }
    const images = await r.images();
    const info: PreflightUnit = {
      benchmark: unit.benchmark,
      item_id: unit.item.item_id,
      condition: unit.condition,
      n_frames: images.length,
      width: plan.width ?? null,
      height: plan.height ?? null,
      frames_as: images.length === 0 ? 'none' : 'fileUrl' in images[0] ? 'file' : 'data',
      predicted_prompt_tokens: Number.isFinite(unit.predictedPromptTokens) ? unit.predictedPromptTokens! : null,
    };
    return { probe: { unit, images, info, release: () => prepared.release() }, problem: null };
  }
  return { probe: null, problem };
}

/** Sends the probe to each server (in parallel) and judges every answer. */
export async function preflightServers(probe: Probe, model: string, clients: readonly VllmClient[], endpoints: readonly string[]): Promise<PreflightServer[]> {
  const body = unitRequestBody(model, probe.unit, probe.images);
  return Promise.all(
    clients.map(async (c, i): Promise<PreflightServer> => {
      const res = await c.chat(body);
      const problem = checkPreflightAnswer(res, probe.info);
      const advice = problem ? fpAdviseFailure(problem, res.ok ? null : res.status, res.ok ? 'request' : res.kind) : null;
      return {
        endpoint: endpoints[i],
        ok: problem === null,
        http_status: res.ok ? 200 : res.status,
        prompt_tokens: res.ok ? res.usage.prompt_tokens : null,
        completion_tokens: res.ok ? res.usage.completion_tokens : null,
        finish_reason: res.ok ? res.finishReason : null,
        latency_s: res.ok ? Math.round(res.latency_s * 1000) / 1000 : null,
        problem,
        meaning: advice?.meaning ?? null,
        action: advice?.action ?? null,
      };
    }),
  );
}

export function preflightFile(layout: PackageLayout): string {
  return layout.preflightRecord;
}

/** The run's pre-flight, written whole (atomically): the last run's is the one on disk. */
export async function writePreflight(layout: PackageLayout, rec: PreflightRecord): Promise<void> {
  const f = preflightFile(layout);
  await writeFileAtomic(layout.root, f, JSON.stringify(rec, null, 2) + '\n');
}

/** The pre-flight on disk, or null when no run has made one yet (a malformed file is an error). */
export async function readPreflight(layout: PackageLayout): Promise<PreflightRecord | null> {
  const f = preflightFile(layout);
  const text = await fs.readFile(f, 'utf8').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw e;
  });
  if (text === null) return null;
  const r = preflightRecordSchema.safeParse(parseBoundedJson(text));
  if (!r.success) throw new Error(`${f}: not a pre-flight record (${r.error.issues[0]?.path.join('.')}: ${r.error.issues[0]?.message})`);
  return r.data;
}
