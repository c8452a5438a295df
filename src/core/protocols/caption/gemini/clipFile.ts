// One clip's captions from the Gemini backend, `<video>/captions/clip_NNNN.json` (seed §3 "Gemini fallback": one
// recoverable JSON per clip, resume granularity one clip), written atomically when the clip's answer is accepted.
// It names what made it (backend, model, normalizer, the prompt's sha256) and the clip it was made from (its path,
// size and mtime, its span): a rerun reuses it only while all of these match, so a changed clip, model, prompt or
// normalizer is asked again. Its events are already on the video's timeline (normalizeGemini.ts).
import { parseBoundedJson } from '../../../io/boundedJson';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../../../runner/atomicFile';
import { readTextIfExists } from '../../../runner/stateRead';
import { tokenCountsSchema } from '../schemas';
import { clipCaptionsFileIn } from '../layout';

export const clipCaptionsSchema = z.object({
  clip: z.number().int().positive(),
  clip_path: z.string(),
  clip_size: z.number().int(),
  clip_mtime_ns: z.string(),
  start_sec: z.number(),
  end_sec: z.number(),
  backend: z.literal('gemini'),
  model: z.string(),
  normalizer: z.string(),
  prompt_sha256: z.string(),
  events: z.array(z.object({ start_sec: z.number(), end_sec: z.number(), caption: z.string() })).min(1),
  /** The answer's text as Gemini gave it (an audit of the loose normalizer starts here). */
  content: z.string(),
  /** usageMetadata summed over this clip's answers (a retried empty answer costs tokens too). */
  tokens: tokenCountsSchema,
  at: z.string(),
});
export type ClipCaptions = z.infer<typeof clipCaptionsSchema>;

/** What a clip JSON must match to be reused. */
export type ClipIdentity = Pick<
  ClipCaptions,
  'clip' | 'clip_path' | 'clip_size' | 'clip_mtime_ns' | 'start_sec' | 'end_sec' | 'model' | 'normalizer' | 'prompt_sha256'
>;

export const clipCaptionsFile = clipCaptionsFileIn;

export async function clipIdentity(
  videoDir: string,
  seg: { index: number; clip_path: string; start_sec: number; end_sec: number },
  run: Pick<ClipIdentity, 'model' | 'normalizer' | 'prompt_sha256'>,
): Promise<ClipIdentity> {
  const st = await fs.stat(path.join(videoDir, seg.clip_path), { bigint: true }).catch(() => null);
  return {
    clip: seg.index,
    clip_path: seg.clip_path,
    clip_size: st ? Number(st.size) : -1,
    clip_mtime_ns: st ? st.mtimeNs.toString() : '-1',
    start_sec: seg.start_sec,
    end_sec: seg.end_sec,
    ...run,
  };
}

/** The clip's JSON when it exists, reads, and was made for exactly `id`; else null (the clip is asked again). */
export async function reusableClipCaptions(videoDir: string, id: ClipIdentity): Promise<ClipCaptions | null> {
  const text = await readTextIfExists(clipCaptionsFile(videoDir, id.clip));
  if (text === null) return null;
  let parsed: ClipCaptions;
  try {
    const r = clipCaptionsSchema.safeParse(parseBoundedJson(text));
    if (!r.success) return null;
    parsed = r.data;
  } catch {
    return null;
  }
  const same = (Object.keys(id) as (keyof ClipIdentity)[]).every((k) => parsed[k] === id[k]);
  return same ? parsed : null;
}

/** Writes a clip's captions beside it; the video directory's folder (the videos root) is the root they stay under. */
export async function writeClipCaptions(videoDir: string, c: ClipCaptions): Promise<void> {
  const file = clipCaptionsFile(videoDir, c.clip);
  await writeFileAtomic(path.dirname(videoDir), file, JSON.stringify(clipCaptionsSchema.parse(c), null, 2) + '\n');
}
