// The caption pre-flight (preflight.ts runCaptionPreflight) against fake servers: the first clip is sent to each
// server as its video will send it plus return_token_ids; the placeholder counts in the prompt it gives back are
// held against the prediction. Counts that match: ok. A mismatch or a refusal: not ok, before any video, with the
// server's and the predicted counts (or the server's words) in the line and in logs/preflight.json.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ClipMediaFacts } from '../../../../src/core/clips/clipProbe';
import { runCaptionPreflight, type PreflightClip } from '../../../../src/core/protocols/caption/preflight';
import { buildCaptionRequest, DEFAULT_FRAME_SAMPLING, type CaptionRequestBody } from '../../../../src/core/protocols/caption/request';
import type { ChatSender } from '../../../../src/core/runner/requestChannel';
import type { ChatResult } from '../../../../src/core/serving/client';
import { OMNI_AUDIO_TOKEN_ID, OMNI_VIDEO_TOKEN_ID } from '../../../../src/core/serving/models/qwen3Omni/counts';

// A 2 s clip of 640x360 at 25 fps with a 44.1 kHz sidecar. Sent at 4 fps: 8 frames, resized to 640x352 (factor 32),
// so 8/2 × (352/16) × (640/16) / 2² = 880 video tokens; 2 s at 16 kHz = 200 feature frames = 2 × 13 = 26 audio tokens.
const FACTS: ClipMediaFacts = {
  videoDurationS: 2,
  audioDurationS: 2,
  video: { totalFrames: 50, width: 640, height: 360 },
  audio: { sampleRate: 44_100, samples: 88_200 },
};
const PREDICTED = { video: 880, audio: 26 };
const CLIP: PreflightClip = {
  name: 'v1 clip 1',
  facts: FACTS,
  body: buildCaptionRequest({
    model: 'Qwen/Qwen3-Omni-30B-A3B-Thinking',
    clipPath: '/videos/v1/clips/clip_0001.mp4',
    sidecarPath: '/videos/v1/clips/clip_0001.mp3',
    prompt: 'caption this clip',
    durationS: 2,
    totalFrames: 50,
  }),
};

/** A prompt's token ids with `video` and `audio` placeholders among ordinary tokens. */
const promptIds = (c: { video: number; audio: number }) => [
  1,
  2,
  ...Array(c.video).fill(OMNI_VIDEO_TOKEN_ID),
  3,
  ...Array(c.audio).fill(OMNI_AUDIO_TOKEN_ID),
  4,
];

const answered = (promptTokenIds: number[] | null): ChatResult => ({
  ok: true,
  text: '{"events": []}',
  usage: { prompt_tokens: 1000, completion_tokens: 10, total_tokens: 1010 },
  latency_s: 0.1,
  finishReason: 'stop',
  attempts: 1,
  promptTokenIds,
});

/** A fake server: gives `result` and keeps the bodies it was sent. */
function fakeSender(result: ChatResult): ChatSender<CaptionRequestBody> & { bodies: CaptionRequestBody[] } {
  const bodies: CaptionRequestBody[] = [];
  return {
    bodies,
    chat: async (body) => {
      bodies.push(body);
      return result;
    },
  };
}

describe('caption pre-flight (runCaptionPreflight)', () => {
  let dir: string;
  const urls = ['http://127.0.0.1:8001', 'http://127.0.0.1:8002'];
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fpsweep-caption-preflight-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const record = () => ({ root: dir, file: path.join(dir, 'logs', 'preflight.json') });
  const readRecord = () => JSON.parse(fs.readFileSync(record().file, 'utf8'));

  it('counts that match on every server: ok, the clip sent as its video sends it plus return_token_ids, the record kept', async () => {
    const servers = [fakeSender(answered(promptIds(PREDICTED))), fakeSender(answered(promptIds(PREDICTED)))];
    const r = await runCaptionPreflight(servers, urls, CLIP, DEFAULT_FRAME_SAMPLING, record());
    assert.equal(r.ok, true);
    assert.equal(r.line, `caption pre-flight ok on v1 clip 1: ${urls[0]}: video 880, audio 26 as predicted; ${urls[1]}: video 880, audio 26 as predicted`);
    for (const s of servers) assert.deepEqual(s.bodies, [{ ...CLIP.body, return_token_ids: true }]);
    assert.equal(CLIP.body.return_token_ids, undefined, "the clip's own body is left as it was");
    const rec = readRecord();
    assert.equal(rec.ok, true);
    assert.equal(rec.nframes, 8);
    assert.deepEqual(rec.model_size, { height: 352, width: 640 });
    assert.deepEqual(
      rec.servers.map((s: { endpoint: string; predicted: unknown; got: unknown; problem: unknown }) => [s.endpoint, s.predicted, s.got, s.problem]),
      urls.map((u) => [u, PREDICTED, PREDICTED, null]),
    );
  });

  it("a server whose counts differ: not ok, before any video, naming the server's counts and the predicted ones", async () => {
    // The second server sampled vLLM's default 32 frames (16 × 22 × 40 / 4 = 3520) and decoded 1 s less audio.
    const got = { video: 3520, audio: 13 };
    const r = await runCaptionPreflight(
      [fakeSender(answered(promptIds(PREDICTED))), fakeSender(answered(promptIds(got)))],
      urls,
      CLIP,
      DEFAULT_FRAME_SAMPLING,
      record(),
    );
    assert.equal(r.ok, false);
    assert.match(r.line, /^caption pre-flight FAILED before any video on v1 clip 1: /);
    assert.ok(r.line.includes(`${urls[0]}: video 880, audio 26 as predicted`), r.line);
    assert.ok(r.line.includes(`${urls[1]}: audio placeholder tokens: server 13, reference 26`), r.line);
    assert.ok(r.line.includes('video placeholder tokens: server 3520, reference 880 (8 frames of 640x352)'), r.line);
    assert.ok(r.line.endsWith(`(kept in ${record().file})`), r.line);
    assert.deepEqual(
      r.servers.map((s) => [s.ok, s.got]),
      [
        [true, PREDICTED],
        [false, got],
      ],
    );
    const rec = readRecord();
    assert.equal(rec.ok, false);
    assert.deepEqual(rec.servers[1].got, got);
    assert.deepEqual(rec.servers[1].predicted, PREDICTED);
  });

  it("a server that refuses the clip, or ignores return_token_ids: not ok, with the server's words", async () => {
    const refused: ChatResult = { ok: false, kind: 'request', status: 400, message: 'video_url: file not allowed (--allowed-local-media-path)', attempts: 1 };
    const down: ChatResult = { ok: false, kind: 'server_down', status: null, message: 'connect ECONNREFUSED 127.0.0.1:8003', attempts: 3 };
    const r = await runCaptionPreflight(
      [fakeSender(refused), fakeSender(answered(null)), fakeSender(down)],
      [...urls, 'http://127.0.0.1:8003'],
      CLIP,
      DEFAULT_FRAME_SAMPLING,
      record(),
    );
    assert.equal(r.ok, false);
    assert.deepEqual(
      r.servers.map((s) => [s.endpoint, s.ok, s.got, s.problem]),
      [
        [urls[0], false, null, 'the server refused the pre-flight clip (400): video_url: file not allowed (--allowed-local-media-path)'],
        [urls[1], false, null, 'the answer has no prompt_token_ids: the server ignored return_token_ids (a vLLM older than the pin?)'],
        ['http://127.0.0.1:8003', false, null, 'the server refused the pre-flight clip (server_down): connect ECONNREFUSED 127.0.0.1:8003'],
      ],
    );
    assert.ok(r.line.includes(`${urls[0]}: the server refused the pre-flight clip (400): video_url: file not allowed`), r.line);
    assert.equal(readRecord().ok, false);
  });

  it('an abort during the sends: throws, and writes no record', async () => {
    const ac = new AbortController();
    const aborting: ChatSender<CaptionRequestBody> = {
      chat: async () => {
        ac.abort(new Error('stopped'));
        return { ok: false, kind: 'server_down', status: null, message: 'aborted', attempts: 1 };
      },
    };
    await assert.rejects(runCaptionPreflight([aborting], [urls[0]], CLIP, DEFAULT_FRAME_SAMPLING, record(), ac.signal), /stopped/);
    assert.equal(fs.existsSync(record().file), false);
  });
});
