// The frames a condition sent, as files: the run's own JPEG (its frame store, .fpsweep/frames) where it is still
// there, else one made again by the frame pipeline, the one module that makes frames (decode, resize, JPEG), into a
// store of the inspector's own (.fpsweep/inspect-frames, capped, LRU): the run's store is the worker's, and a file
// there means "the run wrote it". A frame at (video, index, size) has the same bytes every time (frames/store.ts),
// so a rebuilt frame is the frame that was sent.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
// The store's naming and units only: the pipeline (and sharp with it) is rebuildFrames.ts's, so that the extension
// host can locate frames without loading it.
import type { Dims } from '../frames/jpeg';
import { MiB } from '../frames/options';
import { frameFileName } from '../frames/store';
import type { PackageLayout } from '../package/layout';
import type { VideoMeta } from '../package/schemas';

/** The inspector's frame store: beside the run's, never inside it. */
export function inspectFrameStoreDir(layout: PackageLayout): string {
  return path.join(layout.stateDir, 'inspect-frames');
}

/** Rebuilt frames kept at most (least recently used go first): a few items' worth of 582-frame conditions. */
export const INSPECT_STORE_CAP_BYTES = 512 * MiB;

/** The frames one condition sent: stored indices in send order, at the dims sent. */
export interface SentFrames extends Dims {
  key: string;
  indices: readonly number[];
}

async function isFile(p: string): Promise<boolean> {
  return fs.stat(p).then(
    (s) => s.isFile(),
    () => false,
  );
}

/** Each frame's file in the run's store, else in the inspector's, else null; `fromRun` says which. */
export async function locateFrames(layout: PackageLayout, hash: string, sent: SentFrames): Promise<{ file: string | null; fromRun: boolean }[]> {
  const name = (i: number) => frameFileName(i, sent);
  return Promise.all(
    sent.indices.map(async (i) => {
      const run = path.join(layout.frameStoreDir, hash, name(i));
      if (await isFile(run)) return { file: run, fromRun: true };
      const mine = path.join(inspectFrameStoreDir(layout), hash, name(i));
      return { file: (await isFile(mine)) ? mine : null, fromRun: false };
    }),
  );
}

/** Why a condition's frames cannot be asked of this video (a raw record that does not fit its meta.json), or null. */
export function sentFramesProblem(sent: SentFrames, meta: Pick<VideoMeta, 'width' | 'height' | 'n_frames'>): string | null {
  if (sent.width > meta.width || sent.height > meta.height || sent.width < 1 || sent.height < 1)
    return `frames of ${sent.width}x${sent.height} cannot come from a ${meta.width}x${meta.height} video`;
  const bad = sent.indices.find((i) => i < 0 || i >= meta.n_frames);
  return bad === undefined ? null : `frame ${bad} is not one of the video's ${meta.n_frames}`;
}

/** The frames of one ask made again (their files, in send order), or why the video could not give them. */
export type RebuildResult = { ok: true; paths: string[] } | { ok: false; message: string };
