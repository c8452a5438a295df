// `fpsweep status --package VIDEOS_ROOT` on a large videos root (not a test; issue 25): how long it takes, against a
// floor measured in the same run on the same tree, the least any status must do — the root listed and each
// directory's segments.json stat'ed. Goal: the whole verb under a second at 50,000 directories.
//   npx tsx bench/captionStatus.ts [--dirs 50000] [--repeat 3] [--root DIR (an existing tree: made if empty, kept)]
// Phases (median of --repeat): which run type the folder is (PROTOCOLS.recognising), the caption status view
// (statusView: listing, outcomes, ranks), and the verb end to end in a fresh process (`node dist/cli.js status`,
// when dist/ is built: `npm run build` first, or it measures an old build). The tree is made under the OS's temp
// folder (a /tmp with many entries of its own is the case that once cost seconds) and removed after, unless --root.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { captionProtocol } from '../src/core/protocols/caption';
import { PROTOCOLS } from '../src/core/protocols/registry';
import { mapBounded } from '../src/core/runner/mapBounded';
import { medianSeconds } from './timing';

const arg = (name: string, dflt: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const MAX_DIRS = 200_000;
const REPO = path.resolve(__dirname, '..');
const STUB = JSON.stringify({ segments: [{ index: 0, start: 0, end: 10 }] });

async function makeTree(videos: string, n: number): Promise<void> {
  if ((await fsp.readdir(videos).catch(() => [])).length >= n) return;
  const t = performance.now();
  await mapBounded(
    Array.from({ length: n }, (_, i) => i),
    64,
    async (i) => {
      const dir = path.join(videos, `video_${String(i).padStart(6, '0')}`);
      await fsp.mkdir(dir, { recursive: true });
      await fsp.writeFile(path.join(dir, 'segments.json'), STUB);
    },
  );
  console.log(`${n} video directories made in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}

async function main(): Promise<void> {
  const n = Math.min(Number(arg('dirs', '50000')), MAX_DIRS);
  const repeat = Math.max(1, Math.min(Number(arg('repeat', '3')), 10));
  const given = arg('root', '');
  const work = given ? null : fs.mkdtempSync(path.join(os.tmpdir(), 'caption-status-bench-'));
  const videos = given ? path.resolve(given) : path.join(work!, 'videos');
  fs.mkdirSync(videos, { recursive: true });
  try {
    await makeTree(videos, n);
    const floor = await medianSeconds(repeat, async () => {
      const entries = await fsp.readdir(videos, { withFileTypes: true });
      await mapBounded(entries, 64, (e) =>
        fsp.stat(path.join(videos, e.name, 'segments.json')).then(
          () => true,
          () => false,
        ),
      );
    });
    let ids = '';
    const recognise = await medianSeconds(repeat, async () => {
      ids = (await PROTOCOLS.recognising(videos)).map((p) => p.id).join(',');
    });
    let line = '';
    const view = await medianSeconds(repeat, async () => {
      line = (await captionProtocol.statusView!(videos)).line;
    });
    const cli = path.join(REPO, 'dist', 'cli.js');
    let verbCode: number | null = null;
    const verb = fs.existsSync(cli)
      ? await medianSeconds(repeat, () => {
          verbCode = spawnSync(process.execPath, [cli, 'status', '--package', videos], { stdio: 'ignore', timeout: 120_000 }).status;
        })
      : null;
    const row = (name: string, s: number) => `${name.padEnd(44)} ${s.toFixed(3)} s  ${(s / floor).toFixed(1)}× floor`;
    console.log(`videos root ${videos}: ${n} directories, median of ${repeat}`);
    console.log(row('floor: readdir + stat each segments.json', floor));
    console.log(row(`recognising (${ids || 'none'})`, recognise));
    console.log(row('caption statusView', view) + `  (${line})`);
    if (verb !== null) console.log(row(`node dist/cli.js status (exit ${verbCode})`, verb) + `  ${verb < 1 ? 'under a second' : 'OVER a second'}`);
    else console.log('node dist/cli.js status: not measured (no dist/cli.js: npm run build)');
  } finally {
    if (work) fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exitCode = 1;
});
