// OPTIONAL path for machines that can download VS Code (never used by the tests here: this machine
// and CI cannot download it; the e2e test uses code-server, see ../run.ts).
// `npm run test:electron`: bundles ./suite.ts, downloads VS Code with @vscode/test-electron and runs
// the suite inside its extension host against this checkout's extension and a sample package.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { build } from 'esbuild';
import { runTests } from '@vscode/test-electron';

const REPO = path.resolve(__dirname, '..', '..', '..');

async function main(): Promise<void> {
  const out = path.join(REPO, 'out', 'e2e-electron');
  await build({
    entryPoints: [path.join(__dirname, 'suite.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    external: ['vscode'],
    outfile: path.join(out, 'suite.js'),
  });
  const pkg = fs.mkdtempSync(path.join(os.tmpdir(), 'fpsweep-electron-'));
  execFileSync(process.execPath, [path.join(REPO, 'dist', 'cli.js'), 'sample', '--out', pkg], { stdio: 'inherit' });
  const code = await runTests({
    extensionDevelopmentPath: REPO,
    extensionTestsPath: path.join(out, 'suite.js'),
    launchArgs: [pkg, '--disable-extensions', '--disable-workspace-trust'],
  });
  fs.rmSync(pkg, { recursive: true, force: true });
  process.exit(code);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
