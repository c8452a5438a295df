// `fpsweep status --package OUTPUT_ROOT --run-type cut` on a large cut (not a test; issue 27): how long it takes,
// against a floor measured in the same run on the same tree, the least any status must do: the input root listed,
// each source stat'ed (its signature) and each video's state file read. Half the videos are cut (a state file each),
// half pending (none). Goal: under a second at 50,000 source videos, or say why.
//   npx tsx bench/cutStatus.ts [--videos 50000] [--repeat 3]
// Phases (median of --repeat): the floor, the cut's statusView (readCutView: run.json, ranks, sources, states), and
// the verb end to end in a fresh process (`node dist/cli.js status`, when dist/ is built: `npm run build` first).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { cutProtocol } from '../src/core/protocols/cut';
import { CutLayout } from '../src/core/protocols/cut/layout';
import { sourceSignature, writeVideoState } from '../src/core/protocols/cut/videoState';
import { mapBounded } from '../src/core/runner/mapBounded';
import { medianSeconds } from './timing';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const MAX_VIDEOS = 200_000;
const REPO = path.resolve(__dirname, '..');

async function makeTree(input: string, layout: CutLayout, n: number): Promise<void> {
  const t = performance.now();
  fs.mkdirSync(input, { recursive: true });
  fs.mkdirSync(layout.stateBase, { recursive: true });
  fs.writeFileSync(layout.runFile, JSON.stringify({ inputRoot: input, cutter: 'avcut', at: new Date().toISOString() }) + '\n');
  await mapBounded(
    Array.from({ length: n }, (_, i) => i),
    64,
    async (i) => {
      const stem = `video_${String(i).padStart(6, '0')}`;
      const file = path.join(input, `${stem}.mp4`);
      await fsp.writeFile(file, '');
      if (i % 2) return;
      const signature = (await sourceSignature(file))!;
      await writeVideoState(layout, {
        stem,
        source: file,
        signature,
        state: 'completed',
        reason: null,
        segments: 12,
        degraded: [],
        cutter: 'avcut',
        runId: 'bench',
        rank: null,
        at: new Date().toISOString(),
      });
    },
  );
  console.log(`${n} sources (${Math.ceil(n / 2)} cut) made in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}

async function main(): Promise<void> {
  const n = Math.min(Number(arg('videos', '50000')), MAX_VIDEOS);
  const repeat = Math.max(1, Math.min(Number(arg('repeat', '3')), 10));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'cut-status-bench-'));
  const input = path.join(work, 'input');
  const layout = new CutLayout(path.join(work, 'output'));
  try {
    await makeTree(input, layout, n);
    const floor = await medianSeconds(repeat, async () => {
      const names = await fsp.readdir(input);
      await mapBounded(names, 64, async (name) => {
        await fsp.stat(path.join(input, name));
        await fsp.readFile(layout.stateFile(name.replace(/\.mp4$/, '')), 'utf8').catch(() => null);
      });
    });
    let line = '';
    const view = await medianSeconds(repeat, async () => {
      line = (await cutProtocol.statusView!(layout.root)).line;
    });
    const cli = path.join(REPO, 'dist', 'cli.js');
    let verbCode: number | null = null;
    const verb = fs.existsSync(cli)
      ? await medianSeconds(repeat, () => {
          verbCode = spawnSync(process.execPath, [cli, 'status', '--package', layout.root, '--run-type', 'cut'], { stdio: 'ignore', timeout: 120_000 }).status;
        })
      : null;
    const row = (name: string, s: number) => `${name.padEnd(44)} ${s.toFixed(3)} s  ${(s / floor).toFixed(1)}× floor`;
    console.log(`cut output root ${layout.root}: ${n} sources, median of ${repeat}`);
    console.log(row('floor: readdir + stat + read each state', floor));
    console.log(row('cut statusView', view) + `  (${line})`);
    if (verb !== null) console.log(row(`node dist/cli.js status (exit ${verbCode})`, verb) + `  ${verb < 1 ? 'under a second' : 'OVER a second'}`);
    else console.log('node dist/cli.js status: not measured (no dist/cli.js: npm run build)');
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exitCode = 1;
});
