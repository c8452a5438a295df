// fpsweep demo: the whole seed workflow on an embedded default — a generated sample package served by
// the local stand-in vLLM when no real vLLM is installed (prepare → doctor → dry run → pilot → report →
// full run → report → return), then each run type's own part (its verb module's demoSteps: AVTime-Bench makes a
// sample bench root and runs it). Each step is the same verb a user would type, run as a child process.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { parseVerbArgs } from '../../core/cli/options';
import { RUN_TYPE_VERBS } from '../runTypeVerbs';
import type { DemoContext, DemoService, DemoStep } from '../../core/cli/verb';

export const summary = 'the whole workflow on a generated sample package with the stand-in vLLM (no GPU needed)';

const HELP = `usage: fpsweep demo [--out DIR] [--fresh] [--fp-only]

Makes a sample run package in DIR (default ./demo-package) unless one is there, then runs
prepare, doctor, dry-run, the pilot, report, the full run, report and return on it, exactly as the
seed's runbook does. Then the second run type, AVTime-Bench: a sample bench root in DIR-avtime/bench
(unless there) and one \`fpsweep avtime run\` into a new output root DIR-avtime/outputs/<RUN_ID>
(target on 2 shards, then the judge, then the six scores). Without a real vLLM (VLLM_BIN unset and no
\`vllm\` on PATH) it starts the project's stand-in vLLM (bin/fake-vllm) on 2 pretend GPUs, which
plays the target and the judge by the served model's name; NGPU, WORKERS, VLLM_BIN and
FPSWEEP_STANDIN_LATENCY are honoured when set.
  --out DIR   where the sample package lives (default ./demo-package)
  --fresh     make a new sample package (and AVTime bench) even if DIR holds one
  --fp-only   the Frames × Pixels workflow only (no other run type's part)`;

function onPath(cmd: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export async function run(args: string[]): Promise<number> {
  const v = parseVerbArgs(args, { out: { type: 'string' }, fresh: { type: 'boolean' }, 'fp-only': { type: 'boolean' } }, HELP);
  const out = path.resolve(typeof v.out === 'string' ? v.out : 'demo-package');
  const cli = process.argv[1];
  const repoRoot = path.resolve(path.dirname(cli), '..');
  const env = { ...process.env };
  const noVllm = !env.VLLM_BIN && !onPath('vllm');
  if (noVllm) {
    const standIn = path.join(repoRoot, 'bin', 'fake-vllm');
    if (!existsSync(standIn)) {
      process.stderr.write(`fpsweep demo: no vLLM on PATH and no stand-in at ${standIn}; set VLLM_BIN\n`);
      return 1;
    }
    env.VLLM_BIN = standIn;
    env.NGPU ??= '2';
    // A visibly busy but quick demo: 50 ms per request plus a prefill cost per uncached token.
    env.FPSWEEP_STANDIN_LATENCY ??= 'a=0.05,b=0.000004,shared=1';
    process.stderr.write(`demo: no vLLM here, serving with the stand-in (${standIn}) on ${env.NGPU} pretend GPUs\n`);
  }

  const fresh = v.fresh === true || !existsSync(path.join(out, 'items'));
  const services: DemoService[] = [];
  const steps: DemoStep[] = [
    ...(fresh ? [{ title: 'make a sample package', argv: ['sample', '--out', out, '--no-extract', '--planted', ...(v.fresh ? ['--force'] : [])] }] : []),
    { title: 'prepare: verify shards, extract videos', argv: ['prepare', '--package', out] },
    // doctor fails on a machine without GPUs; the demo goes on and shows what it found.
    { title: 'doctor', argv: ['doctor', '--package', out], okCodes: [0, 1] },
    { title: 'dry run (pilot)', argv: ['dry-run', '--package', out, '--pilot'] },
    { title: 'pilot: MVBench, LVBench, TimeScope', argv: ['run', '--package', out, '--pilot'] },
    { title: 'pilot timing report and checks', argv: ['report', '--package', out] },
    { title: 'full run (skips what the pilot did)', argv: ['run', '--package', out] },
    { title: 'final report', argv: ['report', '--package', out] },
    { title: 'findings: pixels, frames, both or neither per benchmark', argv: ['findings', '--package', out] },
    { title: 'returns: tarball + sha256', argv: ['return', '--package', out] },
  ];
  if (v['fp-only'] !== true) {
    // Each run type's part, in the registry's order (runTypeVerbs.ts): the verbs a user would type next.
    const ctx: DemoContext = { out, fresh: v.fresh === true, standIn: noVllm || path.basename(env.VLLM_BIN ?? '') === 'fake-vllm', env, repoRoot };
    for (const load of Object.values(RUN_TYPE_VERBS)) {
      const service = await load().demoService?.(ctx);
      if (!service) continue;
      services.push(service);
      Object.assign(env, service.env);
    }
    for (const load of Object.values(RUN_TYPE_VERBS)) steps.push(...(load().demoSteps?.(ctx) ?? []));
  }
  try {
    for (const [i, step] of steps.entries()) {
      process.stderr.write(`\n== demo ${i + 1}/${steps.length}: ${step.title}\n$ fpsweep ${step.argv.join(' ')}\n`);
      const r = spawnSync(process.execPath, [cli, ...step.argv], { stdio: 'inherit', env });
      const code = r.status ?? 1;
      if (!(step.okCodes ?? [0]).includes(code)) {
        process.stderr.write(`fpsweep demo: step '${step.title}' exited ${code}; the package is at ${out}\n`);
        return code === 2 ? 2 : 1;
      }
    }
  } finally {
    for (const s of services) s.stop();
  }
  const more = steps.flatMap((s) => (s.doneLine ? [`; ${s.doneLine}`] : [])).join('');
  process.stdout.write(`demo done: package ${out}; report ${path.join(out, '.fpsweep', 'reports', 'report.md')}${more}\n`);
  return 0;
}
