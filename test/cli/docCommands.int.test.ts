// Every command block (```bash, ```sh) of README.md and docs/*.md, run as written: in a temp cwd that holds what the
// repository's root holds for them (dist/, bin/), with `fpsweep` on PATH and relative paths as written. One fixture
// table (BLOCKS below) says, per block, how its placeholders are filled (a stand-in's URL for a port, a temp folder for
// /tmp/, a sample root for /shared/…), what each command exits with, and whether it runs twice (where the docs say it
// resumes). A block that cannot run here (GPUs and real vLLM, Slurm, uploads, the set-up itself) is listed with why,
// and dry-checked: `bash -n`, and each fpsweep command's verb has every flag it passes in its --help. A block missing
// from the table, or an entry whose block is gone, fails the first test.
import { strict as assert } from 'node:assert';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCli } from '../helpers/captureOutput';
import { freePortBlock } from '../../src/cli/verbs/demo';
import { startStandinGemini, type StandinGemini } from '../../src/standins/gemini/server';

const REPO = path.resolve(__dirname, '..', '..');
const CLI = path.join(REPO, 'dist', 'cli.js');

interface Block {
  file: string;
  line: number;
  text: string;
}

/** The ```bash and ```sh blocks of README.md and docs/*.md. */
export function commandBlocks(): Block[] {
  const files = [
    'README.md',
    ...fs
      .readdirSync(path.join(REPO, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];
  const out: Block[] = [];
  for (const file of files) {
    const lines = fs.readFileSync(path.join(REPO, file), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!/^```(bash|sh)\s*$/.test(lines[i])) continue;
      const start = i + 1;
      while (++i < lines.length && !/^```/.test(lines[i]));
      out.push({ file, line: start + 1, text: lines.slice(start, i).join('\n') });
    }
  }
  return out;
}

/** The fixture's values a block's placeholders are filled with. */
interface Fixture {
  tmp: string;
  vllmPort: number;
  gemini: StandinGemini;
  avPorts: [number, number];
  captionRoot: string;
}

interface Entry {
  /** run: executed; dry: cannot run here (why), checked with bash -n and each verb's --help. */
  mode: 'run' | 'dry';
  why?: string;
  /** dry: false for a shipped script quoted whole, whose fpsweep lines are shell variables (the quote is checked
   *  against its file by the test named in why); the block is still parsed by bash -n. */
  verbs?: false;
  /** Literal text → its fixture value, replaced in the block before it runs. */
  fill?: (f: Fixture) => Record<string, string>;
  env?: (f: Fixture) => Record<string, string>;
  /** Exit status of each command (the block's non-comment lines, continuations joined), in order; default all 0. */
  codes?: number[];
  /** Runs a second time in the same cwd: the docs say it resumes. */
  twice?: boolean;
  /** What the second run must show besides its codes. */
  again?: (out: string, f: Fixture) => void;
  /** What every run must show besides its codes (an exit 1 the docs announce is not any exit 1). */
  each?: (out: string) => void;
}

const AVTIME_RUN = 'node dist/cli.js avtime sample --out /tmp/avs';
const avtimeEntry: Entry = {
  mode: 'run',
  fill: (f) => ({ '/tmp/': `${f.tmp}/`, '18011': String(f.avPorts[0]), '18031': String(f.avPorts[1]) }),
};

/** Keyed by file and the block's first command line. */
const BLOCKS: Record<string, Entry> = {
  'README.md: bash scripts/setup.sh && npm run demo': {
    mode: 'dry',
    why:
      'set-up installs system packages as root and npm test would run these tests again; the demo takes minutes of both cores: ' +
      'its run types part runs twice in test/cli/demoRerun.int.test.ts, the whole demo twice by hand (closing note)',
  },
  'README.md: npm ci && npm run build': {
    mode: 'dry',
    why:
      'the sweep on GPUs with a real vLLM (hours), return --upload pushes to the hub; ' +
      'the demo runs each of these verbs on a sample package with the stand-in',
  },
  [`README.md: ${AVTIME_RUN}`]: avtimeEntry,
  [`docs/CLI.md: ${AVTIME_RUN}`]: avtimeEntry,
  'README.md: node dist/cli.js avtime cut-sample --out /tmp/cut-in': {
    mode: 'run',
    fill: (f) => ({ '/tmp/': `${f.tmp}/`, 'http://127.0.0.1:8000': `http://127.0.0.1:${f.vllmPort}` }),
    // The caption sample holds one invalid video directory on purpose: caption exits 1, the others are done.
    codes: [0, 0, 0, 1],
    twice: true,
    each: (out) => assert.match(out, /caption: 4 done, 1 failed, 0 pending \(of 5 selected\)/),
    again: (out) => {
      // Both samples are kept (their Rerun: rule), so the cut and the captions are done before.
      assert.match(out, /\(kept; --fresh makes them again\)/);
      assert.match(out, /4 videos selected, 4 done before, 0 to cut/);
      assert.match(out, /\(kept; --fresh makes it again\)/);
      assert.match(out, /5 videos selected, 4 done before, 1 to caption/);
    },
  },
  'README.md: export GEMINI_API_KEY=try-me': {
    mode: 'run',
    fill: (f) => ({ 'http://127.0.0.1:8090': f.gemini.url }),
    codes: [0, 0, 1],
    twice: true,
    each: (out) => assert.match(out, /caption: 4 done, 1 failed, 0 pending \(of 5 selected\)/),
    again: (out) => assert.match(out, /5 videos selected, 4 done before, 1 to caption/),
  },
  'docs/CAPTION.md: export VLLM_BIN=/opt/vllm-0.18/bin/vllm': {
    mode: 'dry',
    why: 'an sbatch array of 8 nodes with 8 GPUs each and a real vLLM ≥ 0.18; the script it submits is checked in test/cli/clusterDoc.test.ts',
  },
  'docs/CAPTION.md: export GEMINI_API_KEY=...': {
    mode: 'run',
    fill: (f) => ({ 'GEMINI_API_KEY=...': 'GEMINI_API_KEY=try-me', '/shared/avtime/clips': f.captionRoot }),
    env: (f) => ({ GOOGLE_GEMINI_BASE_URL: f.gemini.url }),
    codes: [0, 1],
    twice: true,
    each: (out) => assert.match(out, /caption: 4 done, 1 failed, 0 pending \(of 5 selected\)/),
    again: (out) => assert.match(out, /5 videos selected, 4 done before, 1 to caption/),
  },
  'docs/CLI.md: node dist/cli.js merge --into fp host1/fp host2/fp': {
    mode: 'dry',
    why: 'needs the copies that `run --shard K/N` leaves on several hosts; merge itself is tested on such copies in test/core/protocols/fp/merge',
  },
  'docs/CLI.md: FPSWEEP_PACKAGE=/shared/fp sbatch --gres=gpu:4 examples/slurm/fp-sweep.sbatch': {
    mode: 'dry',
    why:
      'Slurm with GPU nodes; this script runs as an array of 4 (cancelled, killed, requeued, merged) ' +
      'on a real one-node Slurm in test/core/cluster/slurmArray.int.test.ts',
  },
  'docs/CLUSTER.md: FPSWEEP_PACKAGE=/shared/fp FPSWEEP_SHARD_COUNT=4 sbatch --array=2 examples/slurm/fp-sweep.sbatch': {
    mode: 'dry',
    why:
      'Slurm with GPU nodes; --shard auto under the environment Slurm sets for --array=2 is tested in test/core/cli, ' +
      'a requeued task on a real Slurm in test/core/cluster/slurmArray.int.test.ts',
  },
  'docs/CLUSTER.md: #!/bin/bash': {
    mode: 'dry',
    verbs: false,
    why:
      'the shipped job scripts quoted word for word (test/cli/clusterDoc.test.ts checks each quote against its file, ' +
      'bash -n and set -euo pipefail); the four sbatch scripts run on a real Slurm in test/core/cluster/slurmArray.int.test.ts',
  },
  'docs/COUNTS-CHECK.md: npx tsx bench/device/omniCountCases.ts /work/main/.tmp/devcounts/cases.json': {
    mode: 'dry',
    why: "the counts check's device run: a GPU machine with transformers and Qwen3-Omni's processor",
  },
  'docs/CUT.md: fpsweep avtime cut --input-root /data/avtime/videos --output-root /data/avtime/clips': {
    mode: 'dry',
    why: "your AVCut (python at /opt/avtime) and its config; the builtin cutter's README block runs above",
  },
};

/** The block's commands: non-comment lines, continuations joined. */
function commandsOf(text: string): string[] {
  const out: string[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    let l = lines[i];
    while (l.endsWith('\\') && i + 1 < lines.length) l = l.slice(0, -1) + ' ' + lines[++i].trim();
    if (l.trim() && !l.trim().startsWith('#')) out.push(l);
  }
  return out;
}

/** `file: first line` — its first line that is not a `# ` comment, without a trailing comment or `\\`. */
const keyOf = (b: Block) =>
  `${b.file}: ${b.text.split('\n').find((l) => l.trim() && !l.startsWith('# ')) ?? ''}`
    .replace(/\s+#\s.*$/, '')
    .replace(/\s*\\$/, '')
    .trim();

/** A temp cwd as a user's, in the repository's root: dist/ and bin/ there, `fpsweep` on PATH. */
function userCwd(tmp: string): { cwd: string; env: NodeJS.ProcessEnv } {
  const cwd = fs.mkdtempSync(path.join(tmp, 'cwd-'));
  for (const d of ['dist', 'bin']) fs.symlinkSync(path.join(REPO, d), path.join(cwd, d));
  const shims = fs.mkdtempSync(path.join(tmp, 'path-'));
  fs.writeFileSync(path.join(shims, 'fpsweep'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${shims}:${process.env.PATH}` };
  for (const k of ['VLLM_BIN', 'GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_GEMINI_BASE_URL', 'FPSWEEP_PACKAGE']) delete env[k];
  return { cwd, env };
}

/** Runs the block's commands in one bash, each one's exit status recorded after it. */
function runBlock(text: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ codes: number[]; out: string }> {
  const script = commandsOf(text)
    .map((c) => `${c}\necho "__rc=$?"`)
    .join('\n');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.once('error', reject);
    child.once('close', () => resolve({ codes: [...out.matchAll(/^__rc=(\d+)$/gm)].map((m) => Number(m[1])), out }));
  });
}

/** Each fpsweep command's verb lists every flag it is given in its --help. */
async function dryCheck(text: string, verbs: boolean): Promise<void> {
  execFileSync('bash', ['-n', '-c', text]);
  if (!verbs) return;
  for (const c of commandsOf(text)) {
    const m = /(?:^|\s|&&\s*|')(?:fpsweep|node dist\/cli\.js)\s+(.*)$/.exec(c);
    if (!m) continue;
    const words = m[1].split(/'|;\s/)[0].split(/\s+/).filter(Boolean);
    const n = words[0] === 'avtime' ? (words[1] === 'train' ? 3 : 2) : 1;
    const verb = words.slice(0, n);
    const help = await runCli([...verb, '--help']);
    assert.equal(help.code, 0, `fpsweep ${verb.join(' ')} --help: ${help.err}`);
    for (const f of words
      .slice(n)
      .filter((w) => /^--[a-z]/.test(w))
      .map((w) => w.split('=')[0]))
      assert.ok(new RegExp(`${f}\\b`).test(help.out), `fpsweep ${verb.join(' ')} has no ${f}`);
  }
}

describe('the docs are executed: every command block of README.md and docs/*.md', function () {
  this.timeout(900_000);
  const blocks = commandBlocks();
  let f: Fixture;
  let vllm: ChildProcess | undefined;

  before(async () => {
    if (!fs.existsSync(CLI)) execFileSync(process.execPath, ['esbuild.js'], { cwd: REPO, stdio: 'ignore' });
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'doc-commands-'));
    const base = await freePortBlock(4);
    f = {
      tmp,
      vllmPort: base,
      avPorts: [base + 1, base + 3],
      gemini: await startStandinGemini({ apiKey: 'try-me' }),
      captionRoot: path.join(tmp, 'shared-clips'),
    };
    // The caption sample the Gemini page's block captions in place of /shared/avtime/clips.
    execFileSync(process.execPath, [CLI, 'avtime', 'caption-sample', '--out', f.captionRoot], { stdio: 'ignore' });
    // A stand-in vLLM serving the caption model at the URL README's data path names (http://127.0.0.1:8000).
    const model = 'Qwen/Qwen3-Omni-30B-A3B-Thinking';
    vllm = spawn(
      path.join(REPO, 'bin', 'fake-vllm'),
      ['serve', model, '--served-model-name', model, '--host', '127.0.0.1', '--port', String(f.vllmPort), '--allowed-local-media-path', tmp],
      {
        stdio: 'ignore',
        env: { ...process.env, FPSWEEP_STANDIN_LATENCY: 'a=0.001' },
      },
    );
    for (;;) {
      const up = await fetch(`http://127.0.0.1:${f.vllmPort}/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      await new Promise((r) => setTimeout(r, 200));
    }
  });
  after(async () => {
    vllm?.kill('SIGTERM');
    await f?.gemini.close();
    if (f) fs.rmSync(f.tmp, { recursive: true, force: true });
  });

  it('every block is in the fixture table, and every entry names a block (a dry one says why)', () => {
    const keys = blocks.map(keyOf);
    assert.ok(blocks.length >= 10, `only ${blocks.length} blocks`);
    // Every unknown and every stale key at once, so one run says all that the table needs.
    const unknown = keys.filter((k) => !BLOCKS[k]);
    const stale = Object.keys(BLOCKS).filter((k) => !keys.includes(k));
    assert.deepEqual(unknown, [], `command blocks the doc runner does not know — add them to BLOCKS in ${path.relative(REPO, __filename)}`);
    assert.deepEqual(stale, [], 'BLOCKS names blocks that no README/docs block starts with any more');
    for (const [k, e] of Object.entries(BLOCKS)) if (e.mode === 'dry') assert.ok(e.why && e.why.length > 20, `${k}: say why it cannot run here`);
  });

  const done = new Map<string, Promise<void>>();
  for (const b of blocks) {
    const entry = BLOCKS[keyOf(b)];
    if (!entry) continue;
    it(`${b.file}:${b.line} ${entry.mode === 'run' ? `runs as written${entry.twice ? ', twice' : ''}` : `dry (${entry.why})`}`, async () => {
      if (entry.mode === 'dry') return dryCheck(b.text, entry.verbs !== false);
      // The same block in two pages (README and CLI.md) runs once.
      const again = done.get(b.text);
      if (again) return again;
      const run = (async () => {
        let text = b.text;
        for (const [from, to] of Object.entries(entry.fill?.(f) ?? {})) text = text.split(from).join(to);
        const { cwd, env } = userCwd(f.tmp);
        Object.assign(env, entry.env?.(f) ?? {});
        const want = entry.codes ?? commandsOf(text).map(() => 0);
        for (let round = 1; round <= (entry.twice ? 2 : 1); round++) {
          const r = await runBlock(text, cwd, env);
          assert.deepEqual(r.codes, want, `round ${round} of ${b.file}:${b.line}:\n${r.out.slice(-5000)}`);
          entry.each?.(r.out);
          if (round === 2) entry.again?.(r.out, f);
        }
      })();
      done.set(b.text, run);
      return run;
    });
  }
});
