// The frame pipeline (issue 3): decode each stored video once, serve every condition from it.
//
// HOW THE RUNNER USES IT
//
//   const frames = new FramePipeline({ storeDir: layout.frameStoreDir, poolSize, maxBufferedBytes, storeCapBytes });
//   // One job per video: every pending (item, condition) of that video whose plan is `send`
//   // (planFrames from src/core/protocols/fp/rules is the only source of indices and dims; v_blind needs no job).
//   const job: VideoJob = {
//     hash, videoPath: layout.videoFile(hash), meta,             // meta: validated meta.json
//     requests: units.map((u) => ({ key: u.key, indices: plan.indices, width: plan.width, height: plan.height })),
//   };
//   const video = await frames.prepare(job);                    // decodes at most once; never throws for bad data
//   for (const r of video.requests) {
//     if (!r.ok) { /* failures.jsonl: kind r.kind ('decode' | 'no_video'), message r.message */ continue; }
//     r.paths                      // JPEG files in send order (file:// via jpegFileUrls, bytes via readJpegs)
//     r.decodeSeconds              // this request's share of the video's decode time → p1_timing decode_s
//   }
//   video.release(key)  /  video.release()                     // unpin after the answers are recorded
//
// - prepare() of the same hash twice runs one after the other; the second finds the first's JPEGs in the
//   store and decodes only what is still missing (nothing at all → ffmpeg never starts).
// - prepareAhead(jobs) prepares up to `prefetchDepth` videos ahead of its consumer and yields them as
//   they complete; a scheduler with its own prefetch can call prepare() directly instead: at most
//   `poolSize` videos decode at once either way.
// - decodeSeconds: wall seconds of ffmpeg + resize + JPEG for the frames this call made (0 when every
//   frame came from the store), split over the video's requests in proportion to their frame counts.
//   A frame shared by several requests is made once, so attributing it by frame count is the fair share.
// - Failures: no video file → `no_video`; ffmpeg error, frame count ≠ meta.n_frames, frame size ≠
//   meta width×height → `decode` with ffmpeg's last stderr lines / the numbers; these fail that video's
//   requests only. A rejected prepare() is fatal (malformed job, disk, ffmpeg missing, close()).
// - Memory: raw frames held at once ≤ maxBufferedBytes over all decodes (ffmpeg is blocked beyond it).
// - Cores: `poolSize` decodes share them (ffmpegThreads: ffmpeg's own choice for one decode, cores ÷ pool
//   for several); sharp's encodes run on libuv's pool, which a process entry point sizes (threadPool.ts).
// - Raw frames travel from ffmpeg over a Unix socket read in place (rawTransport.ts; `rawTransport: 'pipe'`
//   is the portable fallback, default on Windows); frameAssembler.ts cuts the bytes into frames.
// - Store: <frameStoreDir>/<hash>/<index>_<w>x<h>.jpg, atomic writes, LRU eviction of unpinned files
//   above storeCapBytes. A JPEG at a given (video, index, size) has the same bytes every time.
//
// Knobs (options.ts) change speed and memory only: which frames and which bytes come from the protocol.
export { FramePipeline, readJpegs, jpegFileUrls, jpegDataUrl } from './pipeline';
export type { FrameRequest, VideoJob, PreparedVideo, PreparedRequest, PreparedFrames, FailedFrames, FrameFailureKind, PipelineStats } from './pipeline';
export { framePipelineOptionsSchema, defaultPoolSize, defaultFfmpegThreads, defaultMaxBufferedBytes, resolveOptions, MiB, GiB } from './options';
export { sizeThreadPool, threadPoolSizeFor } from '../../../runner/threadPool';
export type { FramePipelineOptions, FramePipelineSettings } from './options';
export { FrameStore, frameFileName } from './store';
export type { StoreStats } from './store';
export { JPEG_OPTIONS, jpegPipeline, encodeJpegFile } from './jpeg';
export type { Dims } from './jpeg';
export { decodeSelectedFrames, DecodeError, ffmpegDecodeArgs } from './ffmpegDecode';
export type { RawTransportKind } from './rawTransport';
export { selectExpression } from './selectExpr';
export { realFrameStoreDir } from './realStore';
