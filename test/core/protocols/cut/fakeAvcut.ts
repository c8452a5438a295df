// The fake AVCut of the cut tests (test/fixtures/cut/fakeAvcut.cjs): where it is, its environment, its calls.
import * as fs from 'node:fs';
import * as path from 'node:path';

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
