// The Gemini caption backend through the real door (`fpsweep avtime caption --backend gemini`) against the stand-in
// Gemini (issue 35, done-when): good clips, a 429 with RetryInfo, a 503 twice, a SAFETY block, a file that never
// becomes ACTIVE, and the other rules (a blocked prompt, a FAILED file, an empty answer asked once more, prose twice,
// 400 never retried) end with exactly the videos that must fail failed, with their reasons; every uploaded file
// deleted; the tokens summed per video, per run and in status; the key in no file and no line; then a refused key,
// and the one-backend rule.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../helpers/captureOutput';
import { CaptionLayout } from '../../../../src/core/protocols/caption/layout';
import { readVideoOutcome } from '../../../../src/core/protocols/caption/outcome';
import { clearSecrets } from '../../../../src/core/security/secrets';
import { startStandinGemini, type StandinGemini } from '../../../../src/standins/gemini/server';
import { faultsFrom } from '../../../../src/standins/gemini/faults';
import { addVideo, makeClipMedia, tmpRoot } from './videosRoot';
import { geminiCaptionArgs } from './geminiArgs';

const KEY = 'AIzaSyStandin-Secret-0123456789abcdef';

function allFilesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

describe('fpsweep avtime caption --backend gemini (stand-in Gemini)', function () {
  this.timeout(120_000);
  let root: string;
  let g: StandinGemini;
  const saved = { GEMINI_API_KEY: process.env.GEMINI_API_KEY, GOOGLE_API_KEY: process.env.GOOGLE_API_KEY };

  before(async () => {
    root = tmpRoot('gemini-run-');
    const media = makeClipMedia(tmpRoot('gemini-media-'));
    for (const [stem, clips] of [
      ['good-a', 2],
      ['good-b', 1],
      ['rate', 1],
      ['busy', 1],
      ['safety', 2],
      ['stuck', 1],
      ['prompt', 1],
      ['failed', 1],
      ['empty', 1],
      ['prose', 1],
      ['invalid', 1],
    ] as const)
      addVideo(root, stem, media, clips);
    g = await startStandinGemini({
      apiKey: KEY,
      faults: faultsFrom({
        'rate/': { rateLimited: 1, retryDelay: '0.05s' },
        'busy/': { unavailable: 2 },
        'safety/clip_0002': { blockAnswer: 'SAFETY' },
        'stuck/': { processing: 'stuck' },
        'prompt/': { blockPrompt: 'PROHIBITED_CONTENT' },
        'failed/': { processing: 'failed' },
        'empty/': { empty: 1 },
        'prose/': { prose: 2 },
        'invalid/': { invalidArgument: 5 },
      }),
    });
    process.env.GEMINI_API_KEY = KEY;
    delete process.env.GOOGLE_API_KEY;
  });
  after(async () => {
    await g?.close();
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    clearSecrets();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const args = (extra: string[] = []) =>
    geminiCaptionArgs(root, g.url, {
      model: 'gemini-2.5-flash',
      extra: ['--max-inflight-clips', '3', '--retries', '3', '--retry-delay-ms', '5', '--active-timeout', '0.5', ...extra],
    });

  it('fails exactly the videos that must fail, with their reasons; deletes every upload; sums the tokens', async () => {
    const run = await runCli(args());
    assert.equal(run.code, 1, run.out + run.err);
    const layout = new CaptionLayout(root);
    const state = async (stem: string) => {
      const o = await readVideoOutcome(layout, stem);
      return o ? `${o.state}${o.reason ? `: ${o.reason}` : ''}` : 'none';
    };
    for (const stem of ['good-a', 'good-b', 'rate', 'busy', 'empty']) assert.equal(await state(stem), 'completed', stem);
    assert.match(await state('safety'), /^failed: clip 2: answer blocked: finishReason SAFETY$/);
    assert.match(await state('stuck'), /^failed: clip 1: upload files\/fpsweep-[0-9a-f]+ not ACTIVE after 0.5 s \(still PROCESSING\)$/);
    assert.match(await state('prompt'), /^failed: clip 1: prompt blocked: PROHIBITED_CONTENT$/);
    assert.match(await state('failed'), /^failed: clip 1: upload files\/\S+ ended FAILED: The video could not be processed\.$/);
    assert.match(await state('prose'), /^failed: clip 1: unreadable answer: no JSON array or object in the answer, twice$/);
    assert.match(await state('invalid'), /^failed: clip 1: generateContent: HTTP 400 INVALID_ARGUMENT: Request contains an invalid argument\.$/);
    assert.match(run.out.trim().split('\n').pop()!, /caption: 5 done, 6 failed, 0 pending \(of 11 selected\)/);

    // Retries as the rules say: the 429 once then answered, the 503 twice then answered, the 400 asked once, the
    // empty answer asked once more, prose twice.
    assert.equal(g.asked.get('rate/clip_0001'), 2);
    assert.equal(g.asked.get('busy/clip_0001'), 3);
    assert.equal(g.asked.get('invalid/clip_0001'), 1);
    assert.equal(g.asked.get('empty/clip_0001'), 2);
    assert.equal(g.asked.get('prose/clip_0001'), 2);
    assert.equal(g.asked.has('stuck/clip_0001'), false, 'a file never ACTIVE is never asked about');
    assert.match(run.out, /rate\/clip_0001: generateContent: HTTP 429 RESOURCE_EXHAUSTED: .*retry 1\/3 in 50 ms \(RetryInfo\)/);

    // Every uploaded file deleted, failed clips' too; the ledger empty.
    assert.ok(g.created.length >= 13);
    assert.equal(g.files.size, 0, `left on the stand-in: ${[...g.files.keys()].join(', ')}`);
    assert.deepEqual([...g.deleted].sort(), [...g.created].sort());
    assert.deepEqual(fs.readdirSync(path.join(layout.runRoot.stateDir, 'gemini-uploads')), []);

    // Per clip JSON (backend, model, normalizer) and the merged captions naming them too.
    const clip = JSON.parse(fs.readFileSync(path.join(root, 'good-a', 'captions', 'clip_0002.json'), 'utf8'));
    assert.deepEqual([clip.backend, clip.model, clip.normalizer], ['gemini', 'gemini-2.5-flash', 'gemini-loose-v1']);
    const merged = JSON.parse(fs.readFileSync(layout.captionsFile('good-a'), 'utf8'));
    assert.deepEqual(
      merged.map((e: { caption: string }) => e.caption),
      ['good-a/clip_0001 begins (gemini-2.5-flash)', 'good-a/clip_0001 ends', 'good-a/clip_0002 begins (gemini-2.5-flash)', 'good-a/clip_0002 ends'],
    );
    assert.ok(merged.every((e: Record<string, unknown>) => e.backend === 'gemini' && e.normalizer === 'gemini-loose-v1'));
    assert.equal(fs.existsSync(path.join(root, 'safety', 'captions', 'clip_0001.json')), true, 'a failed video keeps its finished clips');

    // Tokens: each video's the sum of its clips', the run's (status) and the root's the stand-in's total.
    const goodA = (await readVideoOutcome(layout, 'good-a'))!;
    const clipTokens = [1, 2].map((n) => JSON.parse(fs.readFileSync(path.join(root, 'good-a', 'captions', `clip_000${n}.json`), 'utf8')).tokens.total);
    assert.equal(goodA.tokens!.total, clipTokens[0] + clipTokens[1]);
    const runStatus = JSON.parse(fs.readFileSync(layout.runRoot.statusFile, 'utf8'));
    assert.equal(runStatus.backend, 'gemini');
    assert.equal(runStatus.tokens.total, g.tokensAnswered.total);
    const status = await runCli(['status', '--package', root, '--json']);
    const detail = JSON.parse(status.out);
    const d = detail.detail ?? detail;
    assert.equal(d.tokens.total, g.tokensAnswered.total);
    assert.deepEqual(d.backends, { gemini: 11 });
    assert.equal(d.videos.find((v: { stem: string }) => v.stem === 'safety').backend, 'gemini');
    const text = await runCli(['status', '--package', root]);
    assert.match(text.out, /backends: gemini 11/);
    assert.match(text.out, /failed safety \[gemini\]: clip 2: answer blocked: finishReason SAFETY/);

    // The key: in no file under the root, no line of the run or the status.
    for (const f of allFilesUnder(root)) assert.equal(fs.readFileSync(f, 'latin1').includes(KEY), false, f);
    for (const out of [run.out, run.err, status.out, text.out]) assert.equal(out.includes(KEY), false);
  });

  it('a rerun asks nothing finished again and captions only what failed', async () => {
    const before = new Map(g.asked);
    const rerun = await runCli(args());
    assert.equal(rerun.code, 1, rerun.out + rerun.err);
    for (const stem of ['good-a/clip_0001', 'good-a/clip_0002', 'good-b/clip_0001', 'safety/clip_0001'])
      assert.equal(g.asked.get(stem), before.get(stem), stem);
    assert.equal(g.asked.get('safety/clip_0002'), before.get('safety/clip_0002')! + 1);
  });

  it('a vLLM run on this root is refused unless --allow-mixed (exit 2, nothing written)', async () => {
    const refused = await runCli(['avtime', 'caption', root, '--base-url', 'http://127.0.0.1:9', '--no-preflight']);
    assert.equal(refused.code, 2, refused.out + refused.err);
    assert.match(refused.err, /captioned with another backend \(\d+ videos by gemini\).*--allow-mixed/);
  });

  it('a refused key stops the run early with what to do; no video fails for it; the key is in no line', async () => {
    const other = tmpRoot('gemini-key-');
    try {
      const media = makeClipMedia(tmpRoot('gemini-media2-'));
      addVideo(other, 'v1', media, 2);
      addVideo(other, 'v2', media, 1);
      process.env.GEMINI_API_KEY = 'AIzaSyWrong-Key-000000000000000';
      const uploadsBefore = g.requests.length;
      const run = await runCli([
        'avtime',
        'caption',
        other,
        '--backend',
        'gemini',
        '--model',
        'gemini-2.5-flash',
        '--gemini-base-url',
        g.url,
        '--tick-ms',
        '100',
      ]);
      assert.equal(run.code, 1, run.out + run.err);
      assert.match(run.out, /stopped on its own: the Gemini API key was refused/);
      assert.match(run.out, /do: set GEMINI_API_KEY/);
      assert.match(run.out, /caption: 0 done, 0 failed, 2 pending/);
      assert.equal(g.requests.length - uploadsBefore, 1, 'one refused call, then nothing');
      assert.equal(run.out.includes('AIzaSyWrong-Key-000000000000000'), false);
      for (const f of allFilesUnder(other)) assert.equal(fs.readFileSync(f, 'latin1').includes('AIzaSyWrong-Key'), false, f);
    } finally {
      process.env.GEMINI_API_KEY = KEY;
      fs.rmSync(other, { recursive: true, force: true });
    }
  });
});
