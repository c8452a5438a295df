// Frames a condition sent that the run's store no longer has, made again by the frame pipeline (the one module that
// makes frames: decode, resize, JPEG) into the inspector's own store (inspectFrames.ts says why a store of its own).
import { FramePipeline, type FrameRequest } from '../frames/pipeline';
import type { PackageLayout } from '../package/layout';
import type { VideoMeta } from '../package/schemas';
import { INSPECT_STORE_CAP_BYTES, inspectFrameStoreDir, type RebuildResult, type SentFrames } from './inspectFrames';

/**
 * Makes the frames of `asks` (one per condition, checked with sentFramesProblem first) with the frame pipeline into
 * the inspector's store: one decode of the video for all of them. A data problem (no video, undecodable) comes back
 * per ask; the machine's failures (disk, no ffmpeg) throw.
 */
export async function rebuildFrames(
  layout: PackageLayout,
  video: { hash: string; meta: Pick<VideoMeta, 'width' | 'height' | 'n_frames'> },
  asks: readonly SentFrames[],
): Promise<Map<string, RebuildResult>> {
  const out = new Map<string, RebuildResult>();
  if (!asks.length) return out;
  const pipeline = new FramePipeline({ storeDir: inspectFrameStoreDir(layout), root: layout.root, poolSize: 1, storeCapBytes: INSPECT_STORE_CAP_BYTES });
  try {
    const requests: FrameRequest[] = asks.map((a) => ({ key: a.key, indices: a.indices, width: a.width, height: a.height }));
    const prepared = await pipeline.prepare({ hash: video.hash, videoPath: layout.videoFile(video.hash), meta: video.meta, requests });
    for (const r of prepared.requests) out.set(r.key, r.ok ? { ok: true, paths: r.paths } : { ok: false, message: `${r.kind}: ${r.message}` });
    prepared.release();
  } finally {
    pipeline.close();
  }
  return out;
}
