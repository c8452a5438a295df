// The fake AVCut of the cut tests (test/fixtures/cut/fakeAvcut.cjs): where it is, its environment, its calls.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { makeClipMedia } from '../caption/videosRoot';

export const FAKE_AVCUT = path.resolve(__dirname, '../../../fixtures/cut/fakeAvcut.cjs');

/** The calls the fake recorded, as "stem gpu" lines. */
export const callsOf = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : []);

/** Sets the fake's environment for this process (the CLI runs in it and passes it to the cutter). */
export function fakeEnv(media: string, calls: string, plan: Record<string, string>, planFile: string): void {
  fs.writeFileSync(planFile, JSON.stringify(plan));
  process.env.FAKE_AVCUT_MEDIA = media;
  process.env.FAKE_AVCUT_CALLS = calls;
  process.env.FAKE_AVCUT_PLAN = planFile;
}

/** Source files: their bytes do not matter to the fake, only their names and signatures. */
export function addSource(inputRoot: string, name: string): void {
  fs.writeFileSync(path.join(inputRoot, name), `source ${name}\n`);
}

/** A cut's folders under `work`: in/ with `sources`, out/ (not made), media/ with the fake's clip; the fake's environment set. */
export function cutWorkspace(work: string, sources: readonly string[], plan: Record<string, string>) {
  const input = path.join(work, 'in');
  const output = path.join(work, 'out');
  const media = path.join(work, 'media');
  fs.mkdirSync(input);
  fs.mkdirSync(media);
  makeClipMedia(media);
  const calls = path.join(work, 'calls.txt');
  fakeEnv(media, calls, plan, path.join(work, 'plan.json'));
  for (const n of sources) addSource(input, n);
  return { input, output, calls };
}
