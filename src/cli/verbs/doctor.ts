// fpsweep doctor [--package DIR] [--json]: every run type's checks (its doctor hook): GPUs, vLLM against each
// run type's pin, model revision, ffmpeg, cores, disk, context-length feasibility, and the package's dry-run
// summary. Exit 0 without a fail, else 1.
import { fpPackageRoot, parseVerbArgs, numberOption, requirePackage, stringFlag, type OptionSpec } from '../../core/cli/options';
import { doctorReport, formatDoctor } from '../../core/doctor/report';
import { PROTOCOLS } from '../../core/protocols/registry';

export const summary = 'GPUs, vLLM, model revision, ffmpeg, cores, disk, context-length feasibility';

const HELP = `usage: fpsweep doctor [--package DIR] [--json]

Checks this machine for every run type; each line is ok / warn / fail with what to do.
Reads NGPU, GPU_UTIL, VLLM_BIN, HF_HOME / HF_HUB_CACHE (and each run type's own settings) from the environment.
  --package DIR   a run package (or FPSWEEP_PACKAGE): its dry run is checked too; a folder that is none is
                  refused (exit 2) before any check
Exit 0 when nothing fails, 1 otherwise.

Rerun: reads only: checks again and writes nothing.`;

export const flags = {
  // The package line is the run package's dry run: a folder that is none is refused before any check (issue 41).
  package: { type: 'string', short: 'p', meta: 'DIR', value: { kind: 'path', is: 'dir', env: 'FPSWEEP_PACKAGE', root: fpPackageRoot } },
  json: { type: 'boolean' },
} satisfies OptionSpec;

export async function run(args: string[]): Promise<number> {
  const v = parseVerbArgs(args, flags, HELP);
  const packageDir = stringFlag(v, 'package') !== undefined || process.env.FPSWEEP_PACKAGE ? requirePackage(v, HELP, fpPackageRoot) : null;
  numberOption(undefined, 'GPU_UTIL', 0.85, 0.05, 1); // a bad GPU_UTIL is a usage error before any probe
  const report = await doctorReport(PROTOCOLS.all, packageDir, { env: process.env });
  process.stdout.write((v.json ? JSON.stringify(report, null, 1) : formatDoctor(report)) + '\n');
  return report.ok ? 0 : 1;
}
