// `fpsweep demo` runs any number of times in one folder, and with --fresh, while something else listens on 8011 (a
// user's own vLLM): every server it starts takes a port that was free. The run types' parts (AVTime, captioning with
// vLLM and with Gemini, the cut) as the built CLI runs them, twice in one temp cwd with the default --out, then once
// with --fresh; the Frames × Pixels part is left to `npm run demo` (minutes of both cores: timed in the closing note)
// and its rerun is each verb's own resume (run, report, return), tested where those verbs are.
import { strict as assert } from 'node:assert';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEMO_PORT_RANGE, demoPartOf, freePortBlock } from '../../src/cli/verbs/demo';
import { RUN_TYPE_VERBS } from '../../src/cli/runTypeVerbs';

const REPO = path.resolve(__dirname, '..', '..');
const CLI = path.join(REPO, 'dist', 'cli.js');

function demo(cwd: string, args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, FPSWEEP_STANDIN_LATENCY: 'a=0.001' };
    delete env.VLLM_BIN;
    delete env.GEMINI_API_KEY;
    delete env.GOOGLE_GEMINI_BASE_URL;
    const child = spawn(process.execPath, [CLI, 'demo', ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? 1, out }));
  });
}

/** Holds `port` on 127.0.0.1 (as a user's vLLM would); null when something already does. */
async function hold(port: number): Promise<net.Server | null> {
  const s = net.createServer((c) => c.destroy());
  return new Promise((resolve) => {
    s.once('error', () => resolve(null));
    s.listen(port, '127.0.0.1', () => resolve(s));
  });
}

describe('fpsweep demo runs again and again in one folder, on free ports', function () {
  this.timeout(1_200_000);
  let cwd: string;
  const held: net.Server[] = [];

  before(async () => {
    if (!fs.existsSync(CLI)) execFileSync(process.execPath, ['esbuild.js'], { cwd: REPO, stdio: 'ignore' });
    cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-rerun-'));
    for (const p of [8011, 8012, 8013, 8031]) {
      const s = await hold(p);
      if (s) held.push(s);
    }
  });
  after(async () => {
    for (const s of held) await new Promise((r) => s.close(r));
    fs.rmSync(cwd, { recursive: true, force: true });
  });

  it("every run type's part is in the demo under a part name --only takes", () => {
    assert.deepEqual([...new Set(Object.keys(RUN_TYPE_VERBS).map(demoPartOf))].sort(), ['avtime', 'caption', 'cut']);
  });

  const parts = 'avtime,caption,cut';
  let firstOut = '';
  it(`demo --only ${parts}: exit 0 the first time, with 8011 taken by someone else`, async () => {
    const r = await demo(cwd, ['--only', parts]);
    firstOut = r.out;
    assert.equal(r.code, 0, r.out.slice(-4000));
    assert.match(r.out, /demo done: parts avtime, caption, cut/);
    assert.doesNotMatch(r.out, /127\.0\.0\.1:8011\b/);
    assert.match(r.out, /--base-port \d+/);
  });

  it('exit 0 the second time in the same folder: the caption roots are kept (vLLM and Gemini each on its own), the cut is done', async () => {
    const r = await demo(cwd, ['--only', parts]);
    assert.equal(r.code, 0, r.out.slice(-4000));
    assert.doesNotMatch(r.out, /captioned with another backend/);
    assert.match(r.out, /caption sample videos root: .*demo-package-caption \(kept; --fresh makes it again\)/);
    assert.match(r.out, /5 videos selected, 4 done before, 1 to caption/);
    assert.match(r.out, /4 videos selected, 4 done before, 0 to caption/);
    assert.match(r.out, /4 videos selected, 4 done before, 0 to cut/);
    // Each backend's captions stay its own.
    const outcome = (root: string) =>
      JSON.parse(fs.readFileSync(path.join(cwd, root, '.fpsweep-caption', 'videos', 'video_a.json'), 'utf8')) as { backend?: string };
    assert.equal(outcome('demo-package-caption').backend ?? 'vllm', 'vllm');
    assert.equal(outcome('demo-package-caption-gemini').backend, 'gemini');
    // Two AVTime output roots, one per demo.
    assert.equal(fs.readdirSync(path.join(cwd, 'demo-package-avtime', 'outputs')).length, 2);
    assert.ok(firstOut.length > 0);
  });

  it('exit 0 with --fresh in the same folder: the samples made again', async () => {
    const r = await demo(cwd, ['--only', parts, '--fresh']);
    assert.equal(r.code, 0, r.out.slice(-4000));
    assert.doesNotMatch(r.out, /\(kept; --fresh makes it again\)/);
  });

  it('freePortBlock hands out a block nothing listens on', async () => {
    const base = await freePortBlock(4);
    for (let p = base; p < base + 4; p++) {
      const s = await hold(p);
      assert.ok(s, `port ${p} was not free`);
      await new Promise((r) => s.close(r));
    }
    // A block whose first port is held is never handed out.
    const taken = await hold(base);
    let calls = 0;
    const { low, high } = DEMO_PORT_RANGE;
    const picked = await freePortBlock(4, () => (calls++ === 0 ? (base - low + 0.5) / (high - low - 4) : 0.5));
    assert.notEqual(picked, base);
    await new Promise((r) => taken!.close(r));
    // Never in the kernel's ephemeral range (Linux 32768+), where a port-0 listener or a connection takes ports.
    assert.ok((await freePortBlock(32, () => 0.999999)) + 32 <= 32_768);
    assert.ok((await freePortBlock(32, () => 0)) >= 20_000);
  });
});
