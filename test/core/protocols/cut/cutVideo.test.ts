// One video's cut with an orphaned cutter: a worker killed with SIGKILL alone leaves its cutter running, still
// writing into the {staging} it was given. The next attempt cuts into its own directory (per run), so what the orphan
// writes later never reaches the directory that attempt validates and publishes.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Cutter, CutRequest } from '../../../../src/core/protocols/cut/cutter';
import { cutVideo, type CutVideoContext } from '../../../../src/core/protocols/cut/cutVideo';
import { CutLayout } from '../../../../src/core/protocols/cut/layout';
import type { PlannedVideo } from '../../../../src/core/protocols/cut/plan';

const CLIP_S = 1.5;

/** A valid AVCut video directory for `input` under `{staging}/<stem>/` (two clips with their mp3 sidecars). */
function writeCut(staging: string, stem: string, input: string): string {
  const dir = path.join(staging, stem);
  fs.mkdirSync(path.join(dir, 'clips'), { recursive: true });
  const segments = [0, 1].map((i) => {
    const clip = `clips/clip_000${i + 1}.mp4`;
    fs.writeFileSync(path.join(dir, clip), 'video');
    fs.writeFileSync(path.join(dir, clip.replace(/\.mp4$/, '.mp3')), 'audio');
    return {
      index: i + 1,
      clip_path: clip,
      start_sec: i * CLIP_S,
      end_sec: (i + 1) * CLIP_S,
      duration_sec: CLIP_S,
      boundary: { source: i === 0 ? 'start' : 'asr', confidence: 0.9 },
      labels: { audio: [], visual: [], joint: [] },
    };
  });
  const doc = {
    input_video: input,
    duration_sec: 2 * CLIP_S,
    detectors: { asr: 'parakeet', scene: 'pyscenedetect', audio_events: 'panns' },
    config: {},
    candidates: { asr: 1, scene: 0, audio: 0 },
    segments,
  };
  fs.writeFileSync(path.join(dir, 'segments.json'), JSON.stringify(doc));
  return JSON.stringify(doc);
}

describe('cutVideo: a cutter orphaned by a killed worker cannot write into a later attempt', () => {
  let work: string;
  beforeEach(() => (work = fs.mkdtempSync(path.join(os.tmpdir(), 'fpsweep-cut-orphan-'))));
  afterEach(() => fs.rmSync(work, { recursive: true, force: true }));

  it("the next run's cut goes to its own {staging}; the orphan's late writes are not published", async () => {
    const input = path.join(work, 'in', 'talk.mp4');
    fs.mkdirSync(path.dirname(input), { recursive: true });
    fs.writeFileSync(input, 'source');
    const layout = new CutLayout(path.join(work, 'out'));
    const video: PlannedVideo = { source: { stem: 'talk', name: 'talk.mp4', file: input }, signature: { size: 6, mtimeNs: '1' }, reason: 'new' };
    const ctx = (runId: string, cutter: Cutter): CutVideoContext => ({
      layout,
      cutter,
      allowDegraded: false,
      probe: async () => ({ videoDurationS: CLIP_S, audioDurationS: CLIP_S }),
      runId,
      rank: null,
    });

    // Run 1: its cutter starts and never returns (its worker is gone; the process goes on).
    let orphanStaging: string | null = null;
    let orphanCalled!: () => void;
    const called = new Promise<void>((resolve) => (orphanCalled = resolve));
    const orphan: Cutter = {
      name: 'avcut',
      knownDegraded: [],
      cut: (req: CutRequest) => {
        orphanStaging = req.staging;
        orphanCalled();
        return new Promise(() => undefined);
      },
    };
    void cutVideo(ctx('run-1', orphan), video, null, new AbortController().signal);
    await called;

    // Run 2 cuts the same video; while it does, the orphan writes its broken output into its own {staging}.
    let published = '';
    let stagings: string[] = [];
    const next: Cutter = {
      name: 'avcut',
      knownDegraded: [],
      cut: async (req: CutRequest) => {
        stagings = [orphanStaging!, req.staging];
        published = writeCut(req.staging, 'talk', input);
        fs.mkdirSync(path.join(orphanStaging!, 'talk', 'clips'), { recursive: true });
        fs.writeFileSync(path.join(orphanStaging!, 'talk', 'segments.json'), '{"segments": "half written"}');
        fs.rmSync(path.join(orphanStaging!, 'talk', 'clips'), { recursive: true, force: true });
        return { ok: true };
      },
    };
    const outcome = await cutVideo(ctx('run-2', next), video, null, new AbortController().signal);
    assert.notEqual(stagings[1], stagings[0], 'each attempt has its own {staging}');
    assert.equal(outcome.state, 'completed', outcome.reason ?? '');
    assert.equal(fs.readFileSync(path.join(layout.finalDir('talk'), 'segments.json'), 'utf8'), published);
    assert.deepEqual(fs.readdirSync(path.join(layout.finalDir('talk'), 'clips')).sort(), ['clip_0001.mp3', 'clip_0001.mp4', 'clip_0002.mp3', 'clip_0002.mp4']);
  });
});
