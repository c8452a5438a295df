// fpsweep return --package DIR [--upload] [--repo R] [--hub-url URL]  (seed §8, SPEC §7)
import { fpPackageRoot, parseVerbArgs, requirePackage, type OptionSpec } from '../../core/cli/options';
import { makeReturns } from '../../core/protocols/fp/returns/returns';
import { formatProgress } from '../../core/protocols/fp/prepare/progressMeter';
import { writeFindingsFile } from '../../core/protocols/fp/findings';

export const summary = 'tarball + sha256 of the results (§7); --upload pushes them to the hub';

const HELP = `usage: fpsweep return --package DIR [--upload] [--repo OWNER/NAME] [--hub-url URL]

Writes fp_returns_<hostname>_<YYYYMMDD>.tar.gz of results/conditions_results.csv results/p1_raw
logs data/logs and fp_returns.sha256 (sha256sum format) in the package root; logs/findings.json
(\`fpsweep findings --json\`) is written first, so the tarball carries it.
--upload     push both to the dataset repo under returns/ (token: HF_TOKEN or ~/.cache/huggingface/token)
--repo       dataset repo (default GMLRVigil/BenchCheck-FramesPixels)
--hub-url    another hub (default: HF_ENDPOINT, as huggingface_hub reads it, else https://huggingface.co)
Without a token the files are left ready for any transfer (exit 0).

Rerun: writes the tarball again from the package as it is then, replacing the day's
fp_returns_<hostname>_<YYYYMMDD>.tar.gz and fp_returns.sha256 (--upload pushes them again).`;

export const flags = {
  package: { type: 'string', short: 'p', meta: 'DIR', value: { kind: 'path', is: 'dir', env: 'FPSWEEP_PACKAGE', root: fpPackageRoot } },
  upload: { type: 'boolean' },
  repo: { type: 'string' },
  'hub-url': { type: 'string' },
} satisfies OptionSpec;

export async function run(args: string[]): Promise<number> {
  const v = parseVerbArgs(args, flags, HELP);
  const packageDir = requirePackage(v, HELP, fpPackageRoot);
  const tty = process.stderr.isTTY;
  try {
    const { file, findings } = await writeFindingsFile(packageDir);
    process.stderr.write(`wrote ${file} (${findings.benchmarks.length} benchmark(s))\n`);
  } catch (err) {
    // The returns never wait on the findings: the tarball's own checks say what is missing.
    process.stderr.write(`findings not written: ${(err as Error).message}\n`);
  }
  const outcome = await makeReturns({
    packageDir,
    upload: v.upload === true,
    repo: typeof v.repo === 'string' ? v.repo : undefined,
    hubUrl: typeof v['hub-url'] === 'string' ? v['hub-url'] : process.env.HF_ENDPOINT || undefined,
    onProgress: (p) => process.stderr.write(tty ? `\r${formatProgress(p)}\x1b[K` : `${formatProgress(p)}\n`),
    onMessage: (line) => process.stderr.write(`${tty ? '\r\x1b[K' : ''}${line}\n`),
  });
  if (tty) process.stderr.write('\n');
  if (outcome.upload.status === 'no_token') process.stderr.write(`${outcome.upload.message}\n`);
  process.stdout.write(`${outcome.summary}\n`);
  return outcome.exitCode;
}
