// The one segments.json validator (SPEC-AVTIME-DATA §2; issue 25, point 2): a valid video directory passes, and each
// rule, broken alone, fails naming the video, the segment and the rule. The media facts come from a table (the
// product's probe is ffprobe); the files are real, so the path rules (no `..`, no symlink out) are checked on disk.
import * as assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { issueText, validateVideoDir, type MediaFacts, type SegmentIssue } from '../../../src/core/clips/segments';

type Doc = Record<string, unknown> & { segments: Record<string, unknown>[] };

function validDoc(): Doc {
  const seg = (index: number, start: number, end: number, source: string) => ({
    index,
    clip_path: `clips/clip_000${index}.mp4`,
    start_sec: start,
    end_sec: end,
    duration_sec: Math.round((end - start) * 1000) / 1000,
    boundary: { source, confidence: 0.8 },
    labels: { audio: [], visual: ['door'], joint: [] },
    extra_key: 'kept',
  });
  return {
    input_video: '/data/src/video_a.mp4',
    duration_sec: 20.02,
    detectors: { asr: 'whisperx', scene: 'pyscenedetect', audio_events: 'panns' },
    config: { min_segment_sec: 6 },
    candidates: { asr: 4, scene: 2 },
    segments: [seg(1, 0, 7.5, 'start'), seg(2, 7.5, 13.98, 'asr'), seg(3, 14, 20, 'scene')],
  };
}

describe('segments.json validator (SPEC-AVTIME-DATA §2)', () => {
  let root: string;
  let n = 0;
  const facts = new Map<string, MediaFacts>();
  const probe = async (file: string): Promise<MediaFacts> => facts.get(file) ?? { videoDurationS: null, audioDurationS: null };

  /** A video directory with `doc` and real clip files; the probe reports each clip at its segment's length. */
  function videoDir(doc: Doc, edit?: (dir: string) => void): string {
    const dir = path.join(root, `video_${++n}`);
    mkdirSync(path.join(dir, 'clips'), { recursive: true });
    writeFileSync(path.join(dir, 'segments.json'), JSON.stringify(doc));
    for (const s of doc.segments) {
      const clip = path.join(dir, String(s.clip_path));
      const mp3 = clip.replace(/\.mp4$/, '.mp3');
      writeFileSync(clip, 'mp4');
      writeFileSync(mp3, 'mp3');
      facts.set(clip, { videoDurationS: Number(s.duration_sec) + 0.1, audioDurationS: Number(s.duration_sec) });
      facts.set(mp3, { videoDurationS: null, audioDurationS: Number(s.duration_sec) });
    }
    edit?.(dir);
    return dir;
  }
  const rules = (issues: SegmentIssue[]) => issues.map((i) => `${i.segment}:${i.rule}`);

  before(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'fpsweep-segments-'));
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('passes a valid directory (times within 0.05 s, media within 0.25 s, unknown keys kept)', async () => {
    const r = await validateVideoDir(videoDir(validDoc()), probe);
    assert.deepEqual(r.issues, []);
    assert.equal((r.doc?.segments[0] as Record<string, unknown>).extra_key, 'kept');
  });

  it('each timeline rule, broken alone, names the video, the segment and the rule', async () => {
    const cases: [string, (d: Doc) => void, string[]][] = [
      ['indices', (d) => (d.segments[1].index = 3), ['3:indices']],
      ['start', (d) => Object.assign(d.segments[0], { start_sec: 0.2, duration_sec: 7.3 }), ['1:starts-at-zero']],
      ['gap', (d) => Object.assign(d.segments[2], { start_sec: 14.1, duration_sec: 5.9 }), ['3:contiguous']],
      ['coverage', (d) => (d.duration_sec = 21), ['3:covers-duration']],
      ['own duration', (d) => (d.segments[1].duration_sec = 6), ['2:segment-duration']],
      ['empty', (d) => Object.assign(d.segments[2], { end_sec: 14, duration_sec: 0 }), ['3:positive-length', '3:covers-duration']],
      ['schema', (d) => delete d.segments[1].labels, ['2:schema']],
    ];
    for (const [name, edit, want] of cases) {
      const doc = validDoc();
      edit(doc);
      const dir = videoDir(doc);
      const r = await validateVideoDir(dir, probe);
      assert.deepEqual(rules(r.issues), want, name);
      assert.ok(issueText(r.issues[0]).startsWith(`${path.basename(dir)} segment `), issueText(r.issues[0]));
    }
    const notJson = videoDir(validDoc(), (dir) => writeFileSync(path.join(dir, 'segments.json'), '{"segments": ['));
    assert.deepEqual(rules((await validateVideoDir(notJson, probe)).issues), ['null:json']);
  });

  it('each media rule: clip files inside the directory, a video stream of the right length, an audio sidecar', async () => {
    const outside = path.join(root, 'outside.mp4');
    writeFileSync(outside, 'mp4');
    const cases: [string, (d: Doc) => void, ((dir: string) => void) | undefined, string[]][] = [
      ['dot-dot', (d) => (d.segments[0].clip_path = '../video_1/clips/clip_0001.mp4'), undefined, ['1:clip-path', '1:clip-path']],
      [
        'symlink out',
        () => undefined,
        (dir) => {
          rmSync(path.join(dir, 'clips/clip_0002.mp4'));
          symlinkSync(outside, path.join(dir, 'clips/clip_0002.mp4'));
        },
        ['2:clip-path'],
      ],
      ['no sidecar', () => undefined, (dir) => rmSync(path.join(dir, 'clips/clip_0003.mp3')), ['3:clip-file']],
      [
        'no video stream',
        () => undefined,
        (dir) => facts.set(path.join(dir, 'clips/clip_0001.mp4'), { videoDurationS: null, audioDurationS: 7.5 }),
        ['1:video-stream'],
      ],
      [
        'too short',
        () => undefined,
        (dir) => facts.set(path.join(dir, 'clips/clip_0002.mp4'), { videoDurationS: 6.2, audioDurationS: 6.2 }),
        ['2:clip-duration'],
      ],
      [
        'silent sidecar',
        () => undefined,
        (dir) => facts.set(path.join(dir, 'clips/clip_0003.mp3'), { videoDurationS: null, audioDurationS: null }),
        ['3:audio-stream'],
      ],
    ];
    for (const [name, editDoc, editDir, want] of cases) {
      const doc = validDoc();
      editDoc(doc);
      const r = await validateVideoDir(videoDir(doc, editDir), probe);
      assert.deepEqual(rules(r.issues), want, `${name}: ${r.issues.map(issueText).join('; ')}`);
    }
  });
});
