// What the caption viewer shows of one video directory (SPEC-AVTIME-DATA §2–§3), as pure functions of its files'
// text: the clips in order on the full video's timeline (each boundary with its `source`), the captions of
// `captions_merged.json` each placed in its clip (which clip, how far in), and the picker's list of videos. No file
// is read here: the panel reads segments.json and captions_merged.json and gives their text. A clip path that is not
// a plain path inside the video directory is refused here (segments.ts's rule), before it can become a URI.
import { z } from 'zod';
import type { CaptionProgressDetail } from './progressTypes';
import { checkSegmentTimeline, clipPathProblem, issueText, parseSegmentsDoc, type SegmentsDoc } from '../../clips/segments';
import { unavailableDetectors } from '../../clips/degraded';
import type { PickerVideo, VideoViewerModel, ViewerCaption, ViewerClip, ViewerCut } from './viewerTypes';
import { locate } from './viewerTime';
import { parseBoundedJson } from '../../io/boundedJson';

export { locate, timelineTime } from './viewerTime';
export type { PickerVideo, VideoViewerModel, ViewerCaption, ViewerClip, ViewerCut };

const captionsSchema = z.array(z.object({ start_sec: z.number().finite(), end_sec: z.number().finite(), caption: z.string() }).passthrough());

/** The viewer's model of a video directory from the text of its files (`captionsText` null: not captioned yet). */
export function buildViewerModel(stem: string, segmentsText: string, captionsText: string | null): VideoViewerModel | { error: string } {
  const parsed = parseSegmentsDoc(stem, segmentsText);
  if ('issues' in parsed) return { error: parsed.issues.map(issueText).join('\n') };
  const doc = parsed.doc;
  const problems = checkSegmentTimeline(stem, doc).map(issueText);
  const clips: ViewerClip[] = doc.segments.map((s) => {
    const refused = clipPathProblem(s.clip_path);
    if (refused) problems.push(`${stem} segment ${s.index}: clip-path: ${refused}`);
    return {
      index: s.index,
      clipPath: refused ? null : s.clip_path,
      refused,
      start: s.start_sec,
      end: s.end_sec,
      source: s.boundary.source,
      confidence: s.boundary.confidence ?? null,
    };
  });
  const captions: ViewerCaption[] = [];
  if (captionsText !== null) {
    const read = readCaptions(captionsText);
    if ('error' in read) problems.push(`${stem}: captions_merged.json: ${read.error}`);
    else for (const c of read.captions) captions.push({ start: c.start_sec, end: c.end_sec, caption: c.caption, ...locate(clips, c.start_sec) });
  }
  return { stem, inputVideo: doc.input_video, duration: doc.duration_sec, clips, cut: cutOf(doc), captions, captioned: captionsText !== null, problems };
}

/** The cut's detectors and degradation; `degraded` and `degraded_reason` are kept keys a cutter may add (SPEC §2). */
function cutOf(doc: SegmentsDoc): ViewerCut {
  const detectors = Object.entries(doc.detectors).map(([channel, d]) => ({ channel, detector: typeof d === 'string' ? d : JSON.stringify(d) }));
  const unavailable = unavailableDetectors(doc.detectors);
  const reason = (doc as { degraded_reason?: unknown }).degraded_reason;
  return {
    detectors,
    unavailable,
    degraded: unavailable.length > 0 || (doc as { degraded?: unknown }).degraded === true,
    degradedReason: typeof reason === 'string' && reason.trim() ? reason : null,
  };
}

function readCaptions(text: string): { captions: z.infer<typeof captionsSchema> } | { error: string } {
  let raw: unknown;
  try {
    raw = parseBoundedJson(text);
  } catch (err) {
    return { error: `not JSON: ${(err as Error).message}` };
  }
  const parsed = captionsSchema.safeParse(raw);
  if (!parsed.success) {
    const e = parsed.error.issues[0];
    return { error: `${e.path.join('.') || '(root)'}: ${e.message}` };
  }
  return { captions: parsed.data };
}

/**
 * The picker's videos: the directories holding segments.json (`stems`, read by the panel), in name order, each
 * with its state and failure reason from the run type's progress when there is one.
 */
export function pickerVideos(stems: readonly string[], detail: Pick<CaptionProgressDetail, 'videos'> | null): PickerVideo[] {
  const byStem = new Map((detail?.videos ?? []).map((v) => [v.stem, v]));
  return [...new Set(stems)].sort().map((stem) => {
    const v = byStem.get(stem);
    return { stem, state: v?.state ?? null, reason: v?.reason ?? null, ...(v?.backend ? { backend: v.backend } : {}) };
  });
}
