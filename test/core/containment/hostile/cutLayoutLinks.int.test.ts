// Issue 42, point 5, for the cut run type: generated from its layout module (CutLayout, with its RunRoot). Each path
// `fpsweep avtime cut` writes gets a link planted at it before the verb runs: exit 2 naming the link, no stack trace,
// nothing outside changed (a file written whole replaces the link instead). A member added to the layout and not
// classified here fails the first test; a path a clean run writes that no member names fails the second.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../helpers/captureOutput';
import { cutWorkspace, FAKE_AVCUT } from '../../protocols/cut/fakeAvcut';
import { CutLayout } from '../../../../src/core/protocols/cut/layout';
import { hostileDir, removeHostileDirs } from './hostileFiles';
import { describeLayoutLinks, type LayoutTable } from './layoutLinks';
import { stopFile } from '../../../../src/core/runner/runRoot';

const STEM = 'v1';
/** A cut (the fake AVCut as the user's cutter), detached (the worker's log), or again after the source changed. */
type Verb = 'cut' | 'detach' | 'recut';

const inputOf = (l: CutLayout) => path.join(path.dirname(l.root), 'in');
const CUTTER = `${process.execPath} ${FAKE_AVCUT} {input} --output-root {staging}`;
const cut = (root: string, extra: string[] = []) =>
  runCli(['avtime', 'cut', '--input-root', inputOf(new CutLayout(root)), '--output-root', root, '--cutter', CUTTER, ...extra]);

/** A published cut of v1, then its source changed: the next cut publishes again (the earlier one renamed aside). */
async function cutOnceThenChange(l: CutLayout): Promise<void> {
  const first = await cut(l.root);
  if (first.code !== 0) throw new Error(first.out + first.err);
  fs.appendFileSync(path.join(inputOf(l), `${STEM}.mp4`), 'changed\n');
}

const LAYOUT: LayoutTable<CutLayout, Verb> = {
  root: { readOnly: 'the output root itself: the user names it, every check starts there' },
  shard: { readOnly: 'not a path: the rank of a sharded run' },
  'runRoot.root': { readOnly: 'the output root again (the engine half of the layout)' },
  'runRoot.stateDir': { at: (l) => l.runRoot.stateDir, kind: 'dir', verb: 'cut' },
  'runRoot.lockFile': { at: (l) => l.runRoot.lockFile, kind: 'file', verb: 'cut' },
  'runRoot.statusFile': { at: (l) => l.runRoot.statusFile, kind: 'file', verb: 'cut', replaced: true },
  'runRoot.logsDir': { at: (l) => l.runRoot.logsDir, kind: 'dir', verb: 'detach' },
  'runRoot.runnerLog': { at: (l) => l.runRoot.runnerLog, kind: 'file', verb: 'detach' },
  stateBase: { at: (l) => l.stateBase, kind: 'dir', verb: 'cut' },
  runFile: { at: (l) => l.runFile, kind: 'file', verb: 'cut', replaced: true },
  stagingBase: { at: (l) => l.stagingBase, kind: 'dir', verb: 'cut' },
  stemStagingDir: { at: (l) => l.stemStagingDir(STEM), kind: 'dir', verb: 'cut' },
  asideDir: { at: (l) => l.asideDir(STEM), kind: 'dir', verb: 'recut', prepare: cutOnceThenChange },
  finalDir: { at: (l) => l.finalDir(STEM), kind: 'dir', verb: 'cut', tree: true },
  stateFile: { at: (l) => l.stateFile(STEM), kind: 'file', verb: 'cut', replaced: true },
  videoLog: { at: (l) => l.videoLog(STEM), kind: 'file', verb: 'cut' },
  cutterRecordsDir: { at: (l) => l.cutterRecordsDir, kind: 'dir', verb: 'cut' },
  cutterRecord: { at: (l) => l.cutterRecord(STEM), kind: 'file', verb: 'cut', replaced: true },
};

describeLayoutLinks({
  title: 'hostile cut output root: a link at every path `avtime cut` writes (issue 42, point 5, from CutLayout)',
  layoutOf: (root) => new CutLayout(root),
  table: LAYOUT,
  beyond: { "the engine's stopFile": { at: (l) => stopFile(l.runRoot), kind: 'file', verb: 'cut' } },
  timeoutMs: 120_000,
  tearDown: async () => {
    for (const k of ['FAKE_AVCUT_MEDIA', 'FAKE_AVCUT_CALLS', 'FAKE_AVCUT_PLAN']) delete process.env[k];
    removeHostileDirs();
  },
  freshRoot: async () => {
    const { output } = cutWorkspace(hostileDir('cut-layout-'), [`${STEM}.mp4`], {});
    fs.mkdirSync(output);
    return output;
  },
  run: (verb, root) => cut(root, verb === 'detach' ? ['--detach'] : []),
  cleanRuns: [['cut', 'recut']],
});
