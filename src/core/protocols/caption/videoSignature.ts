// The resume signature of one video directory as it is on disk now (signature.ts's rule over facts read here):
// segments.json's sha256 and each clip's and sidecar's size and mtime (ns), with the run's model, prompt and decoding.
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { captionSignature, type ClipFileStamp } from './signature';
import { sidecarOf, type SegmentsDoc } from '../../clips/segments';
import type { FrameSampling } from './request';
import { CAPTION_DECODING } from './request';

export interface RunIdentity {
  model: string;
  promptSha256: string;
  sampling: FrameSampling;
  /** A backend other than vLLM (Gemini): its name and normalizer are signed, the frame sampling is not (Gemini gets the mp4). */
  backend?: { name: string; normalizer: string };
}

/** What the signature holds of the decoding: the seed's sampling fields and the frame sampling, as sent. */
export function signatureDecoding(sampling: FrameSampling): Record<string, number> {
  return { ...CAPTION_DECODING, video_fps: sampling.fps, video_min_frames: sampling.minFrames, video_max_frames: sampling.maxFrames };
}

async function stamp(videoDir: string, rel: string): Promise<ClipFileStamp> {
  // A missing file stamps as absent (-1): the signature then differs from any completed run's.
  const st = await fs.stat(path.join(videoDir, rel), { bigint: true }).catch(() => null);
  return { path: rel, size: st ? Number(st.size) : -1, mtimeNs: st ? st.mtimeNs.toString() : '-1' };
}

export async function videoSignature(videoDir: string, segmentsText: string, doc: SegmentsDoc, id: RunIdentity): Promise<string> {
  const media = await Promise.all(doc.segments.flatMap((s) => [stamp(videoDir, s.clip_path), stamp(videoDir, sidecarOf(s.clip_path))]));
  return captionSignature({
    segmentsSha256: createHash('sha256').update(segmentsText, 'utf8').digest('hex'),
    media,
    model: id.model,
    promptSha256: id.promptSha256,
    decoding: id.backend ? {} : signatureDecoding(id.sampling),
    ...(id.backend ? { backend: id.backend } : {}),
  });
}
