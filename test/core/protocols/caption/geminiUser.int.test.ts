// Gemini as a user meets it: no abort listener gathers on the run's signal (Node's MaxListenersExceededWarning after
// ten clips), an endpoint that refuses the connection stops the run in seconds naming the URL and why, a progress line
// while clips are in flight, `bin/fake-gemini --help`, the caption help right for Gemini, --allow-mixed keeping the
// other backend's finished videos unless --recaption, and a prompt that says what is sent (the mp4 and its own sound).
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import { getEventListeners } from 'node:events';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { runCli } from '../../../helpers/captureOutput';
import { captionJobFromArgs } from '../../../../src/core/protocols/caption/cli/caption';
import { geminiApi } from '../../../../src/core/protocols/caption/gemini/client';
import { captionClipWithGemini, type GeminiClipContext } from '../../../../src/core/protocols/caption/gemini/clipCaption';
import { realClock } from '../../../../src/core/protocols/caption/gemini/geminiJob';
import { RpmLimiter } from '../../../../src/core/protocols/caption/gemini/rateLimit';
import { UploadLedger } from '../../../../src/core/protocols/caption/gemini/uploadLedger';
import { CaptionLayout } from '../../../../src/core/protocols/caption/layout';
import { readVideoOutcome, writeVideoOutcome } from '../../../../src/core/protocols/caption/outcome';
import { CAPTION_PROMPT_GEMINI_V1, CAPTION_PROMPT_V1 } from '../../../../src/core/protocols/caption/prompt';
import { clearSecrets } from '../../../../src/core/security/secrets';
import { faultsFrom } from '../../../../src/standins/gemini/faults';
import { startStandinGemini, type StandinGemini } from '../../../../src/standins/gemini/server';
import { addVideo, makeClipMedia, tmpRoot, type MediaPair } from './videosRoot';
import { geminiCaptionArgs } from './geminiArgs';

const KEY = 'AIzaSyStandin-User-0123456789abcdef';
const REPO = path.resolve(__dirname, '../../../..');

/** A port nothing listens on (taken from the system, then closed). */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('Gemini as a user meets it', function () {
  this.timeout(180_000);
  let g: StandinGemini;
  let media: MediaPair;
  const dirs: string[] = [];
  const saved = { GEMINI_API_KEY: process.env.GEMINI_API_KEY, GOOGLE_API_KEY: process.env.GOOGLE_API_KEY };
  const root = (prefix: string) => {
    const d = tmpRoot(prefix);
    dirs.push(d);
    return d;
  };

  before(async () => {
    media = makeClipMedia(root('gemini-user-media-'));
    g = await startStandinGemini({ apiKey: KEY, faults: faultsFrom({ 'slow/': { activeAfterGets: 40 } }) });
    process.env.GEMINI_API_KEY = KEY;
    delete process.env.GOOGLE_API_KEY;
  });
  after(async () => {
    await g?.close();
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    clearSecrets();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  const gemini = (videos: string, extra: string[] = []) => geminiCaptionArgs(videos, g.url, { model: 'gemini-2.5-flash', pollMs: 10, extra });

  it("the run's abort signal holds no more listeners after 1,000 clips than after one (the SDK's stay on a per-call signal)", async () => {
    const dir = root('gemini-user-listeners-');
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      const abort = new AbortController();
      const ctx: GeminiClipContext = {
        api: geminiApi(KEY, g.url),
        model: 'gemini-2.5-flash',
        prompt: CAPTION_PROMPT_GEMINI_V1,
        retries: 0,
        baseDelayMs: 1,
        activeTimeoutS: 10,
        pollMs: 1,
        limiter: new RpmLimiter(null, realClock),
        clock: realClock,
        ledger: new UploadLedger(dir, path.join(dir, 'ledger')),
        signal: abort.signal,
        log: () => undefined,
      };
      const counts: number[] = [];
      for (let i = 1; i <= 1000; i++) {
        const r = await captionClipWithGemini(ctx, { key: `v/clip_${i}`, path: media.mp4, span: { start_sec: 0, end_sec: 1.2 } });
        assert.equal(r.kind, 'ok', JSON.stringify(r));
        if (i === 1 || i % 250 === 0) counts.push(getEventListeners(abort.signal, 'abort').length);
      }
      assert.deepEqual(
        counts,
        counts.map(() => counts[0]),
        `abort listeners after 1, 250, 500, 750, 1000 clips: ${counts.join(', ')}`,
      );
      assert.ok(counts[0] <= 1, `listeners left on the run's signal: ${counts[0]}`);
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(
        warnings.filter((w) => w.includes('MaxListeners')),
        [],
      );
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('an endpoint that refuses the connection stops the run in under 5 s, naming the URL and the cause', async () => {
    const videos = root('gemini-user-refused-');
    for (const stem of ['a', 'b', 'c', 'd']) addVideo(videos, stem, media, 2);
    const url = `http://127.0.0.1:${await closedPort()}`;
    const t0 = Date.now();
    // The default retries and backoff, as a user runs it.
    const run = await runCli(['avtime', 'caption', videos, '--backend', 'gemini', '--model', 'gemini-2.5-flash', '--gemini-base-url', url]);
    const seconds = (Date.now() - t0) / 1000;
    assert.equal(run.code, 1, run.out + run.err);
    assert.ok(seconds < 5, `took ${seconds.toFixed(1)} s`);
    assert.match(run.out, new RegExp(`stopped on its own: cannot reach Gemini at ${url.replace(/\./g, '\\.')}: the connection was refused \\(ECONNREFUSED\\)`));
    assert.match(run.out, /ECONNREFUSED/);
    assert.match(run.out, /do: check --gemini-base-url/);
    assert.match(run.out, /caption: 0 done, 0 failed, 4 pending/);
    assert.doesNotMatch(run.out, /retry 1\/5/);
  });

  it('prints a line per clip captioned and, while a clip is in flight, a progress line at least every --progress-ms', async () => {
    const videos = root('gemini-user-progress-');
    addVideo(videos, 'quick', media, 2);
    addVideo(videos, 'slow', media, 1);
    const run = await runCli(gemini(videos, ['--progress-ms', '100', '--max-inflight-clips', '1']));
    assert.equal(run.code, 0, run.out + run.err);
    assert.match(run.out, /quick\/clip_0001: captioned in \d+\.\d s \(\d of 3 clips this run\)/);
    assert.match(run.out, /slow\/clip_0001: captioned in/);
    // The slow clip stays PROCESSING for 40 looks: the run says what it waits for meanwhile.
    const progress =
      /progress: \d of 3 clips captioned this run, \d videos done, 0 failed; in flight: slow\/clip_0001 \((waiting for files\/\S+ to be ACTIVE|files\.get)/;
    assert.match(run.out, progress);
    // A user's default: a progress line at least every 5 s.
    assert.equal((await captionJobFromArgs(gemini(videos).slice(2))).job.progressMs, 5000);
  });

  it('bin/fake-gemini --help says how to use it (exit 0); an unknown flag is exit 2 with the help', () => {
    const help = spawnSync(path.join(REPO, 'bin', 'fake-gemini'), ['--help'], { encoding: 'utf8', env: { ...process.env, FPSWEEP_STANDIN_GEMINI_KEY: '' } });
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /^usage: FPSWEEP_STANDIN_GEMINI_KEY=KEY bin\/fake-gemini \[--port N\] \[--faults FILE\]/);
    assert.match(help.stdout, /--backend gemini --model gemini-2\.5-flash --gemini-base-url URL/);
    const bad = spawnSync(path.join(REPO, 'bin', 'fake-gemini'), ['--nope'], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /Unknown option '--nope'[\s\S]*usage:/);
  });

  it("caption's help is right for Gemini: its default of one clip in flight, --active-timeout, not Qwen3-Omni only", async () => {
    const h = await runCli(['avtime', 'caption', '--help']);
    assert.equal(h.code, 0);
    const synopsis = h.out.split('\n\n')[0];
    assert.doesNotMatch(synopsis, /--max-inflight-clips 64\]/);
    assert.match(synopsis, /--max-inflight-clips N \(vLLM 64, gemini 1\)/);
    assert.match(synopsis, /--active-timeout 600/);
    assert.match(synopsis, /--recaption/);
    assert.match(h.out, /with\nQwen3-Omni on vLLM \(the clip's mp4 and its mp3 sidecar as the audio\), or with Gemini/);
    assert.match(h.out, /\(--backend gemini: the clip's\nmp4, its own audio track\)/);
    const videos = root('gemini-user-help-');
    addVideo(videos, 'v', media, 1);
    assert.equal((await captionJobFromArgs(gemini(videos).slice(2))).job.maxInflightClips, 1);
  });

  it('--allow-mixed keeps the finished vLLM captions; --recaption replaces them; the refusal says what each does', async () => {
    const videos = root('gemini-user-mixed-');
    addVideo(videos, 'by-vllm', media, 1);
    addVideo(videos, 'new', media, 1);
    const layout = new CaptionLayout(videos);
    const vllmCaptions = '[{"start_sec": 0, "end_sec": 1.2, "caption": "by Qwen3-Omni"}]\n';
    fs.writeFileSync(layout.captionsFile('by-vllm'), vllmCaptions);
    await writeVideoOutcome(layout, {
      stem: 'by-vllm',
      state: 'completed',
      signature: 'vllm-signature',
      reason: null,
      clips: 1,
      runId: 'earlier',
      rank: null,
      at: new Date().toISOString(),
      backend: 'vllm',
      model: 'Qwen3-Omni-30B-A3B-Thinking',
      normalizer: 'qwen-seed-v1',
    });

    const refused = await runCli(gemini(videos));
    assert.equal(refused.code, 2);
    assert.match(refused.err, /pass --allow-mixed: it captions only the videos no backend finished and keeps the vllm captions as they are/);
    assert.match(refused.err, /add --recaption to caption those videos again with gemini, replacing their captions_merged\.json/);

    const mixed = await runCli(gemini(videos, ['--allow-mixed']));
    assert.equal(mixed.code, 0, mixed.out + mixed.err);
    assert.match(mixed.out, /2 videos selected, 1 done before \(1 of them by another backend, kept: --recaption captions them again\), 1 to caption/);
    assert.equal(fs.readFileSync(layout.captionsFile('by-vllm'), 'utf8'), vllmCaptions);
    assert.equal((await readVideoOutcome(layout, 'by-vllm'))?.backend, 'vllm');
    assert.equal(g.asked.has('by-vllm/clip_0001'), false);
    assert.equal((await readVideoOutcome(layout, 'new'))?.backend, 'gemini');

    assert.equal((await runCli(gemini(videos, ['--recaption']))).code, 2, '--recaption goes with --allow-mixed');
    const again = await runCli(gemini(videos, ['--allow-mixed', '--recaption']));
    assert.equal(again.code, 0, again.out + again.err);
    assert.notEqual(fs.readFileSync(layout.captionsFile('by-vllm'), 'utf8'), vllmCaptions);
    assert.equal((await readVideoOutcome(layout, 'by-vllm'))?.backend, 'gemini');
  });

  it('the prompt Gemini gets speaks of the clip with its sound, not of a separate audio track (only the mp4 is sent)', async () => {
    const videos = root('gemini-user-prompt-');
    addVideo(videos, 'v', media, 1);
    const run = await runCli(gemini(videos));
    assert.equal(run.code, 0, run.out + run.err);
    const sent = g.prompts.get('v/clip_0001') ?? '';
    assert.match(sent, /^You are given one short clip of a longer video, with its sound\./);
    assert.doesNotMatch(sent, /separate track/);
    assert.ok(!CAPTION_PROMPT_GEMINI_V1.includes('separate track'));
    // vLLM's request carries the mp3 sidecar as its own audio part: its prompt says so.
    assert.ok(CAPTION_PROMPT_V1.includes('separate track'));
  });
});
