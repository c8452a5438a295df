// AVTime training-data benchmark (not a test): `fpsweep avtime split`, `build-sft` and `build-grpo` at the seed's
// scale, against the floor of reading and hashing the same input once.
//   npx tsx bench/avtimeData.ts [--rows 50000] [--seed S] [--keep]  (--keep: the corpus and outputs stay)
// Workload (deterministic, seeded): ROWS retained AVTime rows (JSON event lists of 3–15 events with 8–20-word
// captions, 80 % percentages, 15 % milliseconds, 5 % `From XX to YY` lines) plus 1 % rows of another source.
// Each stage runs in its own child process (so its peak memory is its own): wall time of the work inside the
// child, its CPU time (user + system: steadier than wall time on a shared machine) and its peak RSS. Floor, same
// run: a child that reads the stage's input and sha256s it once.
// Goal (issue 26 point 7): every stage within 2× of its floor's time and under 1 GB peak.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
// The verbs themselves, loaded (and compiled by tsx) before any clock starts: the work is timed, not loading.
import * as splitVerb from '../src/core/protocols/avtime/data/cli/split';
import * as sftVerb from '../src/core/protocols/avtime/data/cli/buildSft';
import * as grpoVerb from '../src/core/protocols/avtime/data/cli/buildGrpo';
import { SeededRandom } from '../src/core/seededRandom';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
};

const random = new SeededRandom(Number(arg('seed', '20261204')));
const rand = () => random.next();
const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
const WORDS = [
  ...'a man woman child dog car door opens closes speaks laughs music plays loudly softly'.split(' '),
  ...'in the room street kitchen while rain falls bell rings crowd cheers engine starts'.split(' '),
];
const caption = () => Array.from({ length: int(8, 20) }, () => WORDS[int(0, WORDS.length - 1)]).join(' ');

function corpus(rows: number, file: string): void {
  const out = fs.openSync(file, 'w');
  for (let i = 0, r = 0; r < rows; i++) {
    if (i % 100 === 50) {
      fs.writeSync(out, JSON.stringify({ id: `lv_${i}`, videos: [`lv/${i}.mp4`], messages: [], metadata: { source: 'longvale' } }) + '\n');
      continue;
    }
    const id = `avtime_${String(r).padStart(6, '0')}`;
    const duration = int(10_000, 900_000);
    const n = int(3, 15);
    const kind = rand();
    const evs = Array.from({ length: n }, () => {
      const a = rand() * 95;
      return [a, Math.min(a + rand() * 20, 100), caption()] as const;
    }).sort((x, y) => x[0] - y[0]);
    const answer =
      kind < 0.8
        ? JSON.stringify(evs.map(([a, b, c]) => ({ start_pct: Math.round(a * 100) / 100, end_pct: Math.round(b * 100) / 100, caption: c })))
        : kind < 0.95
          ? JSON.stringify({
              events: evs.map(([a, b, c]) => ({ start_ms: Math.floor((a * duration) / 100), end_ms: Math.floor((b * duration) / 100), caption: c })),
            })
          : evs.map(([a, b, c]) => `From ${String(Math.floor(a)).padStart(2, '0')} to ${String(Math.min(Math.ceil(b), 99)).padStart(2, '0')}, ${c}`).join('\n');
    const row = {
      id,
      videos: [`/data/avtime/videos/${id}.mp4`],
      messages: [
        { role: 'system', content: 'You are a helpful assistant.' },
        { role: 'user', content: '<video>Describe every audio-visual event.' },
        { role: 'assistant', content: answer },
      ],
      metadata: { source: 'avtime', duration_ms: duration, ...(kind >= 0.95 ? { event_count: n } : {}) },
    };
    fs.writeSync(out, JSON.stringify(row) + '\n');
    r++;
  }
  fs.closeSync(out);
}

const VERBS: Record<string, { run(args: string[]): Promise<number> }> = { split: splitVerb, 'build-sft': sftVerb, 'build-grpo': grpoVerb };

interface Measured {
  seconds: number;
  cpuSeconds: number;
  peakMb: number;
}

/** In the child: one stage (or the floor), its time and peak RSS on stdout as JSON. */
async function child(stage: string, a: string[]): Promise<void> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  if (stage === 'floor') {
    createHash('sha256').update(fs.readFileSync(a[0])).digest('hex');
  } else {
    const code = await VERBS[stage].run(a);
    if (code !== 0) throw new Error(`${stage} exited ${code}`);
  }
  const seconds = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  const cpuSeconds = (c.user + c.system) / 1e6;
  process.stdout.write('\n' + JSON.stringify({ seconds, cpuSeconds, peakMb: process.resourceUsage().maxRSS / 1024 }) + '\n');
}

function run(stage: string, a: string[]): Measured {
  const r = spawnSync(process.execPath, [...process.execArgv, __filename, '--child', stage, ...a], { encoding: 'utf8', maxBuffer: 16 << 20 });
  if (r.status !== 0) throw new Error(`${stage}: exit ${r.status}\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Measured;
}

function parent(): void {
  const rows = Number(arg('rows', '50000'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'avtime-data-bench-'));
  const src = path.join(dir, 'all.jsonl');
  const bench = path.join(dir, 'bench');
  fs.mkdirSync(path.join(bench, 'prompts'), { recursive: true });
  fs.writeFileSync(path.join(bench, 'prompts', 'target.txt'), 'Find every audio-visual event; answer `From XX to YY, caption` lines.\n');
  fs.writeFileSync(path.join(bench, 'prompts', 'system.txt'), 'You are a helpful assistant.');
  const t = performance.now();
  corpus(rows, src);
  const mb = (f: string) => (fs.statSync(f).size / 1e6).toFixed(1);
  console.log(`corpus: ${rows} retained rows, ${mb(src)} MB, made in ${((performance.now() - t) / 1000).toFixed(1)} s (${dir})`);
  const split = path.join(dir, 'split');
  const train = path.join(split, 'train.jsonl');
  const sft = path.join(dir, 'sft.jsonl');
  const stages: [string, string, string[]][] = [
    ['split', src, ['--source', src, '--output-root', split, '--derive-test-ids', '--expected-rows', String(rows)]],
    [
      'build-sft',
      train,
      ['--avtime-jsonl', train, '--avtime-sample-count', '0', '--bench-root', bench, '--output-jsonl', sft, '--report-json', `${sft}.report.json`],
    ],
    ['build-grpo', sft, ['--input-jsonl', sft, '--output-jsonl', path.join(dir, 'grpo.jsonl'), '--report-json', path.join(dir, 'grpo.report.json')]],
  ];
  let ok = true;
  for (const [stage, input, a] of stages) {
    const m = run(stage, a);
    const floor = run('floor', [input]);
    const ratio = m.seconds / floor.seconds;
    const pass = ratio <= 2 && m.peakMb < 1024;
    ok &&= pass;
    console.log(
      `${stage.padEnd(10)} input ${mb(input).padStart(6)} MB: ${m.seconds.toFixed(2)} s (cpu ${m.cpuSeconds.toFixed(2)} s), peak ${m.peakMb.toFixed(0)} MB | ` +
        `floor (read + sha256) ${floor.seconds.toFixed(2)} s (cpu ${floor.cpuSeconds.toFixed(2)} s), peak ${floor.peakMb.toFixed(0)} MB | ` +
        `${ratio.toFixed(1)}× the floor (cpu ${(m.cpuSeconds / floor.cpuSeconds).toFixed(1)}×) ${pass ? 'ok' : 'OVER the goal (2×, 1 GB)'}`,
    );
  }
  if (!process.argv.includes('--keep')) fs.rmSync(dir, { recursive: true, force: true });
  process.exitCode = ok ? 0 : 1;
}

const ci = process.argv.indexOf('--child');
if (ci >= 0)
  child(process.argv[ci + 1], process.argv.slice(ci + 2)).catch((err) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exit(1);
  });
else parent();
