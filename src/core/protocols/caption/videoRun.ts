// One video of a caption run, from its validation to its outcome: the clips' accepted answers as they come, the
// first failure (which fails the video: its other clips are not sent), and at the end captions_merged.json
// (atomic, only when every clip succeeded) and the outcome file, in that order — a kill between the two leaves
// captions without a completed outcome, which a rerun captions again rather than trusting.
import * as path from 'node:path';
import { writeFileAtomic } from '../../runner/atomicFile';
import { AppendFile } from '../../runner/appendFile';
import type { ClipEvent } from './answer';
import type { ClipMediaFacts } from '../../clips/clipProbe';
import type { CaptionLayout } from './layout';
import { mergeVideoCaptions } from './normalize';
import { writeVideoOutcome } from './outcome';
import type { PlannedVideo } from './plan';
import type { RawRecord, VideoOutcome } from './schemas';
import { sidecarOf, type Segment } from '../../clips/segments';

export interface ClipInput {
  segment: Segment;
  clipPath: string;
  sidecarPath: string;
  facts: ClipMediaFacts;
}

export class VideoRun {
  readonly raw: AppendFile;
  clips: ClipInput[] = [];
  private readonly answers = new Map<number, ClipEvent[]>();
  failure: string | null = null;

  constructor(
    readonly planned: PlannedVideo,
    private readonly layout: CaptionLayout,
    /** Which backend, model and normalizer make its captions (recorded in its outcome). */
    private readonly provenance: Pick<VideoOutcome, 'backend' | 'model' | 'normalizer'> = {},
  ) {
    this.raw = new AppendFile(layout.root, layout.rawFile(planned.stem));
  }

  get stem(): string {
    return this.planned.stem;
  }
  get clipsDone(): number {
    return this.answers.size;
  }
  get clipCount(): number {
    return this.planned.doc?.segments.length ?? 0;
  }

  /** Fills the clips' inputs from the validated document and the probe's facts. */
  setClips(probe: (file: string) => ClipMediaFacts): void {
    this.clips = (this.planned.doc?.segments ?? []).map((segment) => {
      const clipPath = path.join(this.planned.dir, segment.clip_path);
      const sidecarPath = path.join(this.planned.dir, sidecarOf(segment.clip_path));
      // Frames from the clip, the audio from its sidecar (use_audio_in_video is false: the mp4's track is not sent).
      const clip = probe(clipPath);
      const sidecar = probe(sidecarPath);
      return { segment, clipPath, sidecarPath, facts: { ...clip, audio: sidecar.audio, audioDurationS: sidecar.audioDurationS } };
    });
  }

  record(r: RawRecord): Promise<void> {
    return this.raw.append(JSON.stringify(r) + '\n');
  }

  accept(clip: number, events: ClipEvent[]): void {
    this.answers.set(clip, events);
  }

  /** The first failure is the video's reason. */
  fail(reason: string): void {
    this.failure ??= reason;
  }

  get complete(): boolean {
    return this.failure === null && this.clipCount > 0 && this.answers.size === this.clipCount;
  }

  /** Writes what the video reached: completed (captions, then the outcome) or failed; nothing when cut short. */
  async finish(runId: string, rank: number | null): Promise<'completed' | 'failed' | 'pending'> {
    await this.raw.close();
    const base = { stem: this.stem, signature: this.planned.signature, clips: this.clipCount, runId, rank, at: new Date().toISOString(), ...this.provenance };
    if (this.failure !== null) {
      await writeVideoOutcome(this.layout, { ...base, state: 'failed', reason: this.failure });
      return 'failed';
    }
    if (!this.complete) return 'pending';
    const merged = mergeVideoCaptions(this.clips.map((c) => ({ span: c.segment, events: this.answers.get(c.segment.index)! })));
    await writeFileAtomic(this.layout.root, this.layout.captionsFile(this.stem), JSON.stringify(merged, null, 2) + '\n');
    await writeVideoOutcome(this.layout, { ...base, state: 'completed', reason: null });
    return 'completed';
  }
}
