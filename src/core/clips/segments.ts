// The one `segments.json` validator of SPEC-AVTIME-DATA §2, used by captioning before any request (and by the cut
// before it publishes). Every failure names the video, the segment and the rule. The structure is checked by
// pure functions; the clip files by checkClipMedia with an injected probe (ffprobe in the product, a table in tests).
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { parseBoundedJson } from '../io/boundedJson';

/** Times agree within this (seconds): starts, ends, coverage, a segment's own duration. */
export const TIME_TOLERANCE_S = 0.05;
/** A clip's measured duration agrees with its segment's within this (seconds). */
export const MEDIA_TOLERANCE_S = 0.25;

const segmentSchema = z
  .object({
    index: z.number().int(),
    clip_path: z.string().min(1),
    start_sec: z.number().finite(),
    end_sec: z.number().finite(),
    duration_sec: z.number().finite(),
    boundary: z.object({ source: z.string(), confidence: z.number().optional() }).passthrough(),
    labels: z.object({ audio: z.array(z.unknown()), visual: z.array(z.unknown()), joint: z.array(z.unknown()) }).passthrough(),
  })
  .passthrough();

export const segmentsDocSchema = z
  .object({
    input_video: z.string().min(1),
    duration_sec: z.number().finite().positive(),
    detectors: z.object({ asr: z.string(), scene: z.string(), audio_events: z.string() }).passthrough(),
    config: z.record(z.unknown()),
    candidates: z.record(z.unknown()),
    segments: z.array(segmentSchema).min(1),
  })
  .passthrough();
export type SegmentsDoc = z.infer<typeof segmentsDocSchema>;
export type Segment = SegmentsDoc['segments'][number];

export type SegmentRule =
  | 'json'
  | 'schema'
  | 'indices'
  | 'starts-at-zero'
  | 'positive-length'
  | 'contiguous'
  | 'covers-duration'
  | 'segment-duration'
  | 'clip-path'
  | 'clip-file'
  | 'video-stream'
  | 'audio-stream'
  | 'clip-duration';

export interface SegmentIssue {
  /** The video directory's name (its stem). */
  video: string;
  /** The segment's index, or null for the file as a whole. */
  segment: number | null;
  rule: SegmentRule;
  message: string;
}

export const issueText = (i: SegmentIssue) => `${i.video}${i.segment === null ? '' : ` segment ${i.segment}`}: ${i.rule}: ${i.message}`;

const near = (a: number, b: number, tol = TIME_TOLERANCE_S) => Math.abs(a - b) <= tol + 1e-9;

/** The document of `text`, or the issues that stop it being one. */
export function parseSegmentsDoc(video: string, text: string): { doc: SegmentsDoc } | { issues: SegmentIssue[] } {
  let raw: unknown;
  try {
    raw = parseBoundedJson(text);
  } catch (err) {
    return { issues: [{ video, segment: null, rule: 'json', message: `segments.json is not JSON: ${(err as Error).message}` }] };
  }
  const parsed = segmentsDocSchema.safeParse(raw);
  if (parsed.success) return { doc: parsed.data };
  return {
    issues: parsed.error.issues.map((e) => {
      const seg = e.path[0] === 'segments' && typeof e.path[1] === 'number' ? e.path[1] + 1 : null;
      return { video, segment: seg, rule: 'schema' as const, message: `${e.path.join('.') || '(root)'}: ${e.message}` };
    }),
  };
}

/** The timeline rules: indices 1..n, start 0, each end > start, contiguous, covering duration_sec, own durations. */
export function checkSegmentTimeline(video: string, doc: SegmentsDoc): SegmentIssue[] {
  const issues: SegmentIssue[] = [];
  const add = (segment: number | null, rule: SegmentRule, message: string) => issues.push({ video, segment, rule, message });
  const segs = doc.segments;
  segs.forEach((s, i) => {
    if (s.index !== i + 1) add(s.index, 'indices', `segment ${i + 1} of the list has index ${s.index} (indices run 1..${segs.length} in order)`);
    if (!(s.end_sec > s.start_sec)) add(s.index, 'positive-length', `end_sec ${s.end_sec} is not after start_sec ${s.start_sec}`);
    if (!near(s.duration_sec, s.end_sec - s.start_sec))
      add(s.index, 'segment-duration', `duration_sec ${s.duration_sec} ≠ end − start = ${s.end_sec - s.start_sec}`);
    if (i > 0 && !near(s.start_sec, segs[i - 1].end_sec)) {
      add(s.index, 'contiguous', `start_sec ${s.start_sec} ≠ the previous segment's end_sec ${segs[i - 1].end_sec} (a gap or an overlap)`);
    }
  });
  if (!near(segs[0].start_sec, 0)) add(segs[0].index, 'starts-at-zero', `the first segment starts at ${segs[0].start_sec}, not 0`);
  const last = segs[segs.length - 1];
  if (!near(last.end_sec, doc.duration_sec))
    add(last.index, 'covers-duration', `the last segment ends at ${last.end_sec}, not at the video's duration_sec ${doc.duration_sec}`);
  return issues;
}

/** What the probe says of one media file: its streams' durations in seconds (null: that stream is absent). */
export interface MediaFacts {
  videoDurationS: number | null;
  audioDurationS: number | null;
}
export type MediaProbe = (file: string) => Promise<MediaFacts>;

/** The mp3 sidecar of a clip: the same path with `.mp3` for its extension. */
export const sidecarOf = (clipPath: string) => clipPath.replace(/\.[^./]+$/, '') + '.mp3';

/** Why `rel` (a path from segments.json) is not a plain relative path inside its video directory, or null (no file read). */
export function clipPathProblem(rel: string): string | null {
  return path.isAbsolute(rel) || rel.split(/[\\/]/).includes('..') ? `${rel} is not a plain path inside the video directory` : null;
}

/** The clip's absolute path when `rel` is a plain relative path inside `videoDir` to a regular file, else why not. */
async function fileInside(videoDir: string, rel: string): Promise<{ file: string } | { why: string; rule: SegmentRule }> {
  const plain = clipPathProblem(rel);
  if (plain) return { why: plain, rule: 'clip-path' };
  const file = path.join(videoDir, rel);
  const st = await fs.lstat(file).catch(() => null);
  if (!st) return { why: `${rel} does not exist`, rule: 'clip-file' };
  if (st.isSymbolicLink()) return { why: `${rel} is a symbolic link (a clip must be a file of its video directory)`, rule: 'clip-path' };
  if (!st.isFile()) return { why: `${rel} is not a regular file`, rule: 'clip-file' };
  const [real, dir] = await Promise.all([fs.realpath(file), fs.realpath(videoDir)]);
  if (!real.startsWith(dir + path.sep)) return { why: `${rel} resolves outside the video directory (${real})`, rule: 'clip-path' };
  return { file };
}

/** Each clip and its sidecar: files of the video directory, the mp4 with a video stream of the segment's length, the mp3 with audio. */
export async function checkClipMedia(video: string, videoDir: string, doc: SegmentsDoc, probe: MediaProbe): Promise<SegmentIssue[]> {
  const issues: SegmentIssue[] = [];
  for (const s of doc.segments) {
    const add = (rule: SegmentRule, message: string) => issues.push({ video, segment: s.index, rule, message });
    const clip = await fileInside(videoDir, s.clip_path);
    const sidecar = await fileInside(videoDir, sidecarOf(s.clip_path));
    if ('why' in clip) add(clip.rule, clip.why);
    if ('why' in sidecar) add(sidecar.rule, `sidecar: ${sidecar.why}`);
    if ('file' in clip) {
      const facts = await probe(clip.file);
      if (facts.videoDurationS === null) add('video-stream', `${s.clip_path} has no video stream`);
      else if (!near(facts.videoDurationS, s.duration_sec, MEDIA_TOLERANCE_S)) {
        add('clip-duration', `${s.clip_path} lasts ${facts.videoDurationS} s, the segment ${s.duration_sec} s (more than ${MEDIA_TOLERANCE_S} s apart)`);
      }
    }
    if ('file' in sidecar && (await probe(sidecar.file)).audioDurationS === null) add('audio-stream', `${sidecarOf(s.clip_path)} has no audio stream`);
  }
  return issues;
}

/** The whole validator for one video directory: the document, its timeline, then its clips (only when the timeline holds). */
export async function validateVideoDir(videoDir: string, probe: MediaProbe): Promise<{ doc: SegmentsDoc | null; issues: SegmentIssue[] }> {
  const video = path.basename(videoDir);
  const text = await fs.readFile(path.join(videoDir, 'segments.json'), 'utf8').catch((err: Error) => err);
  if (text instanceof Error) return { doc: null, issues: [{ video, segment: null, rule: 'json', message: `cannot read segments.json: ${text.message}` }] };
  const parsed = parseSegmentsDoc(video, text);
  if ('issues' in parsed) return { doc: null, issues: parsed.issues };
  const timeline = checkSegmentTimeline(video, parsed.doc);
  if (timeline.length) return { doc: parsed.doc, issues: timeline };
  return { doc: parsed.doc, issues: await checkClipMedia(video, videoDir, parsed.doc, probe) };
}
