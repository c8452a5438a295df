// `fpsweep avtime caption` against a fake server on 127.0.0.1 (issue 25's done-when): a videos root with valid,
// invalid and untracked directories; a clip refused with 400 (asked once), one answering 503 twice, one whose first
// answer is not JSON. The outputs equal reference.py's independent recomputation, the exit is 1 with the counts,
// status sums the root, and a rerun asks only what is not done (a changed sidecar makes its video asked again).
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../helpers/captureOutput';
import { CaptionLayout } from '../../../../src/core/protocols/caption/layout';
import { readVideoOutcome } from '../../../../src/core/protocols/caption/outcome';
import { rawRecordSchema } from '../../../../src/core/protocols/caption/schemas';
import { answerOf, startCaptionFake, type CaptionFake, type FakeReply } from './captionFake';
import { addVideo, CLIP_S, makeClipMedia, tmpRoot } from './videosRoot';

function reply(clip: string, n: number): FakeReply {
  if (clip.startsWith('refused/')) return { status: 400, error: 'Could not open video stream None' };
  if (clip.startsWith('flaky/') && n <= 2) return { status: 503, error: 'busy' };
  if (clip.startsWith('prose/') && n === 1) return { status: 200, content: 'I would rather describe it in words: a tone over a test card.' };
  return { status: 200, content: answerOf(clip) };
}

/** reference.py --merge over the accepted answers of each video's clips. */
function reference(videos: { stem: string; clips: number }[]): unknown[] {
  const input = videos.map((v) =>
    Array.from({ length: v.clips }, (_, i) => {
      const start = Math.round(i * CLIP_S * 1000) / 1000;
      return {
        content: answerOf(`${v.stem}/clip_${String(i + 1).padStart(4, '0')}`),
        clip: { start_sec: start, end_sec: Math.round((start + CLIP_S) * 1000) / 1000 },
      };
    }),
  );
  return JSON.parse(execFileSync('/usr/bin/python3', [path.join(__dirname, 'reference.py'), '--merge'], { input: JSON.stringify(input) }).toString());
}

const readJson = (f: string) => JSON.parse(fs.readFileSync(f, 'utf8'));

describe('fpsweep avtime caption (failure matrix, fake server)', function () {
  this.timeout(90_000);
  let root: string;
  let fake: CaptionFake;
  const args = () => ['avtime', 'caption', root, '--base-url', fake.url, '--no-preflight', '--retries', '2', '--retry-delay-ms', '10', '--tick-ms', '100'];

  before(async () => {
    root = tmpRoot('caption-matrix-');
    const media = makeClipMedia(tmpRoot('caption-media-'));
    addVideo(root, 'ok-two', media, 2);
    addVideo(root, 'refused', media, 1);
    addVideo(root, 'flaky', media, 1);
    addVideo(root, 'prose', media, 1);
    addVideo(root, 'gappy', media, 2, { gapAfter: 0 });
    fs.mkdirSync(path.join(root, 'notes'));
    fake = await startCaptionFake(reply);
  });
  after(async () => {
    await fake?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('captions what it can, fails the rest with their reasons, exits 1 with the counts', async () => {
    const r = await runCli(args());
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(r.out.trim().split('\n').pop()!, /caption: 3 done, 2 failed, 0 pending \(of 5 selected\)$/);
    // Asked: the 400 once, the 503 clip until it answered, the prose clip again, the invalid directory never.
    assert.deepEqual(Object.fromEntries([...fake.asked].sort()), {
      'flaky/clip_0001': 3,
      'ok-two/clip_0001': 1,
      'ok-two/clip_0002': 1,
      'prose/clip_0001': 2,
      'refused/clip_0001': 1,
    });
    const layout = new CaptionLayout(root);
    const want = reference([
      { stem: 'ok-two', clips: 2 },
      { stem: 'flaky', clips: 1 },
      { stem: 'prose', clips: 1 },
    ]);
    assert.deepEqual([readJson(layout.captionsFile('ok-two')), readJson(layout.captionsFile('flaky')), readJson(layout.captionsFile('prose'))], want);
    for (const stem of ['refused', 'gappy']) assert.equal(fs.existsSync(layout.captionsFile(stem)), false, stem);
    assert.match((await readVideoOutcome(layout, 'refused'))!.reason!, /clip 1: HTTP 400: Could not open video stream/);
    assert.match((await readVideoOutcome(layout, 'gappy'))!.reason!, /gappy segment 2: contiguous/);
    const raw = (stem: string) =>
      fs
        .readFileSync(layout.rawFile(stem), 'utf8')
        .trim()
        .split('\n')
        .map((l) => rawRecordSchema.parse(JSON.parse(l)));
    assert.deepEqual(
      raw('prose').map((x) => [x.attempt, x.status]),
      [
        [1, 'invalid'],
        [2, 'ok'],
      ],
    );
    assert.deepEqual(
      raw('flaky').map((x) => [x.status, x.http_attempts]),
      [['ok', 3]],
    );
    assert.deepEqual(
      raw('refused').map((x) => [x.status, x.http_status]),
      [['refused', 400]],
    );
    // The request as sent: the clip and its sidecar as file URLs, the sidecar as the audio, the seed's decoding.
    const body = fake.bodies.find((b) => JSON.stringify(b).includes('ok-two/clips/clip_0001.mp4'))!;
    assert.deepEqual(
      body.messages[0].content.map((c: { type: string }) => c.type),
      ['video_url', 'audio_url', 'text'],
    );
    assert.equal(body.messages[0].content[1].audio_url.url, `file://${path.join(root, 'ok-two', 'clips', 'clip_0001.mp3')}`);
    assert.equal(body.mm_processor_kwargs.use_audio_in_video, false);
    assert.deepEqual([body.temperature, body.top_p, body.top_k, body.repetition_penalty, body.max_tokens], [0.6, 0.95, 20, 1.0, 32768]);
    assert.equal(body.model, 'Qwen/Qwen3-Omni-30B-A3B-Thinking');
  });

  it('status sums the root: total, completed, failed with reasons, pending, untracked', async () => {
    const s = await runCli(['status', '--package', root, '--json']);
    const d = JSON.parse(s.out);
    assert.deepEqual([d.total, d.completed, d.running, d.failed, d.pending], [5, 3, 0, 2, 0]);
    assert.deepEqual(d.untracked, ['notes']);
    assert.deepEqual(
      d.videos.filter((v: { state: string }) => v.state === 'failed').map((v: { stem: string }) => v.stem),
      ['gappy', 'refused'],
    );
  });

  it('a rerun asks only the videos not done; a changed sidecar makes its video asked again', async () => {
    const before = new Map(fake.asked);
    const merged = fs.readFileSync(new CaptionLayout(root).captionsFile('ok-two'), 'utf8');
    assert.equal((await runCli(args())).code, 1);
    assert.equal(fake.asked.get('ok-two/clip_0001'), before.get('ok-two/clip_0001'));
    assert.equal(fake.asked.get('refused/clip_0001'), 2, 'a failed video is tried again by a rerun');
    const sidecar = path.join(root, 'ok-two', 'clips', 'clip_0002.mp3');
    const later = new Date(Date.now() + 5_000);
    fs.utimesSync(sidecar, later, later);
    assert.equal((await runCli(args())).code, 1);
    assert.equal(fake.asked.get('ok-two/clip_0001'), before.get('ok-two/clip_0001')! + 1);
    assert.equal(fs.readFileSync(new CaptionLayout(root).captionsFile('ok-two'), 'utf8'), merged);
  });
});
