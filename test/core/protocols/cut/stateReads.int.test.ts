// A plan or a status reads one state file per video. Read all at once, a large root runs out of file descriptors
// (EMFILE) and an unreadable state read as "none" calls a finished video pending, or cuts it again. Here under a
// limit of 256 descriptors (a host's can be 1024 for 50,000 videos): every state is read, and a state that exists
// but cannot be read stops the plan with its error instead of counting as none.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readTextIfExists } from '../../../../src/core/runner/stateRead';
import { readCutSources } from '../../../../src/core/protocols/cut/sources';
import { CutLayout } from '../../../../src/core/protocols/cut/layout';
import { sourceSignature, writeVideoState } from '../../../../src/core/protocols/cut/videoState';
import { tmpRoot } from '../caption/videosRoot';

const REPO = path.resolve(__dirname, '../../../..');
const VIDEOS = 1500;

describe('cut state files: read bounded, and only "no file" is none', function () {
  this.timeout(120_000);
  let work: string;
  let input: string;
  let layout: CutLayout;

  before(async () => {
    work = tmpRoot('cut-state-reads-');
    input = path.join(work, 'input');
    layout = new CutLayout(path.join(work, 'output'));
    fs.mkdirSync(input, { recursive: true });
    fs.mkdirSync(layout.stateBase, { recursive: true });
    fs.writeFileSync(layout.runFile, JSON.stringify({ inputRoot: input, cutter: 'avcut', at: new Date().toISOString() }) + '\n');
    for (let i = 0; i < VIDEOS; i++) {
      const stem = `v${String(i).padStart(5, '0')}`;
      const file = path.join(input, `${stem}.mp4`);
      fs.writeFileSync(file, '');
      const signature = (await sourceSignature(file))!;
      const state = { stem, source: file, signature, state: 'completed' as const, reason: null, segments: 3, degraded: [], cutter: 'avcut' };
      await writeVideoState(layout, { ...state, runId: 'r', rank: null, at: new Date().toISOString() });
    }
  });
  after(() => fs.rmSync(work, { recursive: true, force: true }));

  it(`status under ulimit -n 256: all ${VIDEOS} cut videos are completed, none pending`, () => {
    const cli = path.join(REPO, 'src', 'cli', 'main.ts');
    const r = spawnSync(
      'bash',
      ['-c', 'ulimit -n 256 && exec "$0" --import tsx "$1" status --package "$2" --run-type cut --json', process.execPath, cli, layout.root],
      {
        cwd: REPO,
        encoding: 'utf8',
        timeout: 90_000,
      },
    );
    assert.equal(r.status, 0, r.stderr);
    const d = JSON.parse(r.stdout) as { completed: number; pending: number; videos: unknown[] };
    assert.deepEqual({ videos: d.videos.length, completed: d.completed, pending: d.pending }, { videos: VIDEOS, completed: VIDEOS, pending: 0 });
  });

  it('a state file that exists but cannot be read stops the plan (it is not "none": the video would be cut again)', async () => {
    assert.equal(await readTextIfExists(path.join(work, 'no-such-file.json')), null);
    const stem = 'v00007';
    const file = layout.stateFile(stem);
    const kept = fs.readFileSync(file);
    fs.rmSync(file);
    fs.mkdirSync(file);
    try {
      await assert.rejects(readCutSources(layout, input), (e: NodeJS.ErrnoException) => e.code === 'EISDIR' && e.message.includes(file));
    } finally {
      fs.rmdirSync(file);
      fs.writeFileSync(file, kept);
    }
  });
});
