// fpsweep demo: the whole seed workflow on an embedded default — a generated sample package served by
// the local stand-in vLLM when no real vLLM is installed (prepare → doctor → dry run → pilot → report →
// full run → report → return), then each run type's own part (its verb module's demoSteps: AVTime-Bench makes a
// sample bench root and runs it). Each step is the same verb a user would type, run as a child process.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { parseVerbArgs } from '../../core/cli/options';
import { UsageError } from '../../core/errors';
import { RUN_TYPE_VERBS } from '../runTypeVerbs';
import { fpProtocol } from '../../core/protocols/fp';
import { FP_VLLM_PIN } from '../../core/protocols/fp/vllmPin';
import type { DemoContext, DemoService, DemoStep } from '../../core/cli/verb';

export const summary = 'the whole workflow on a generated sample package with the stand-in vLLM (no GPU needed)';

const HELP = `usage: fpsweep demo [--out DIR] [--fresh] [--fp-only | --only PART,...]

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
  --fp-only   the Frames × Pixels workflow only (no other run type's part)
  --only P,P  only these parts: fp, avtime, caption, cut (e.g. --only caption: the captioning part alone)

Rerun: resumes: as often as you like in one folder, each step resumes, says it is done, or (AVTime) makes a new
output root; every server it starts listens on ports that were free when it started (never the fixed 8011+ a vLLM of yours may
hold).`;

/** A run type's part of the demo by its verb (runTypeVerbs.ts): \`avtime cut-sample\` → cut. */
export const demoPartOf = (verb: string): string =>
  verb
    .split(' ')
    .pop()!
    .replace(/-sample$/, '');
/** The demo's parts: Frames × Pixels' own steps (this file), then each run type's part by its verbs. */
const FP_PART = fpProtocol.id;
const DEMO_PARTS = [FP_PART, ...new Set(Object.keys(RUN_TYPE_VERBS).map(demoPartOf))];

/** Whether a TCP port on 127.0.0.1 can be listened on now. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/**
 * Where the demo's ports are: above the ports a user's servers usually take, and below every system's ephemeral range
 * (Linux 32768–60999, macOS and Windows 49152+), from which the kernel hands out a port to any listener on port 0 and
 * any outgoing connection. The block is checked when the demo starts and its servers start minutes later: in the
 * ephemeral range, a port free at the check was taken by then (a fresh clone's `demo --fresh` failed so, EADDRINUSE).
 */
export const DEMO_PORT_RANGE = { low: 20_000, high: 32_768 } as const;

/** The first of `size` consecutive ports free on 127.0.0.1 now, in DEMO_PORT_RANGE. */
export async function freePortBlock(size: number, random: () => number = Math.random): Promise<number> {
  const { low, high } = DEMO_PORT_RANGE;
  for (let tries = 0; tries < 200; tries++) {
    const base = low + Math.floor(random() * (high - low - size));
    let ok = true;
    for (let p = base; ok && p < base + size; p++) ok = await portFree(p);
    if (ok) return base;
  }
  throw new Error(`no ${size} consecutive free ports on 127.0.0.1 between ${low} and ${high}`);
}

/** Ports the demo's servers take: more than its steps need at once, so none waits for another's to close. */
const DEMO_PORTS = 32;

/**
 * After doctor, on the stand-in: its FAIL and warn lines are about a real run on this machine (a GPU, the model's
 * weights, each run type's vLLM), which the demo does not need; said plainly so that they do not read as the demo's
 * failure. doctor's own output stays as it is: it tells the truth about this host.
 */
export function doctorNote(standIn: boolean, code: number): string | undefined {
  if (code === 0) return standIn ? 'demo: doctor passed; the demo serves with the stand-in vLLM all the same.' : undefined;
  if (!standIn) return 'demo: doctor found failures (above): the demo goes on to show the workflow; fix them before a real run.';
  return (
    'demo: the FAIL and warn lines above are what a real run on this machine would need (a GPU host: NVIDIA GPUs, ' +
    "the model's weights, a vLLM of each run type's pin); they are not a fault of the demo, which needs none of them: " +
    'it serves with the stand-in vLLM (bin/fake-vllm: no GPU, no weights), so it goes on. The pin warnings for AVTime ' +
    `and captioning read \`fake-vllm --version\`, the Frames × Pixels release (${FP_VLLM_PIN.rulesFrom}); in the demo each role's stand-in ` +
    'plays its own pinned release. On a GPU host, `fpsweep doctor` there says what is missing.'
  );
}

/** Frames × Pixels' steps, as the seed's runbook has them: `make` a sample package first (`force`: a new one). */
export function fpDemoSteps(o: { out: string; make: boolean; force: boolean; fpPort: number; standIn: boolean }): DemoStep[] {
  const { out, fpPort } = o;
  return [
    ...(o.make ? [{ title: 'make a sample package', argv: ['sample', '--out', out, '--no-extract', '--planted', ...(o.force ? ['--force'] : [])] }] : []),
    { title: 'prepare: verify shards, extract videos', argv: ['prepare', '--package', out] },
    // doctor fails on a machine without GPUs; the demo goes on, shows what it found and says what that means here.
    {
      title: o.standIn ? 'doctor: what a real run on this machine would need (the demo itself runs on the stand-in vLLM)' : 'doctor',
      argv: ['doctor', '--package', out],
      okCodes: [0, 1],
      after: (code) => doctorNote(o.standIn, code),
    },
    { title: 'dry run (pilot)', argv: ['dry-run', '--package', out, '--pilot'] },
    { title: 'pilot: MVBench, LVBench, TimeScope', argv: ['run', '--package', out, '--pilot', '--base-port', String(fpPort)] },
    { title: 'pilot timing report and checks', argv: ['report', '--package', out] },
    { title: 'full run (skips what the pilot did)', argv: ['run', '--package', out, '--base-port', String(fpPort)] },
    { title: 'final report', argv: ['report', '--package', out] },
    { title: 'findings: pixels, frames, both or neither per benchmark', argv: ['findings', '--package', out] },
    { title: 'returns: tarball + sha256', argv: ['return', '--package', out] },
  ];
}

/** Runs the steps in order (`runStep`: the verb as a child process, its exit code): 0, or the exit of the step that stopped it. */
export function runDemoSteps(steps: readonly DemoStep[], out: string, runStep: (argv: string[]) => number, write: (text: string) => void): number {
  for (const [i, step] of steps.entries()) {
    write(`\n== demo ${i + 1}/${steps.length}: ${step.title}\n$ fpsweep ${step.argv.join(' ')}\n`);
    const code = runStep(step.argv);
    if (!(step.okCodes ?? [0]).includes(code)) {
      write(`fpsweep demo: step '${step.title}' exited ${code}; the package is at ${out}\n`);
      return code === 2 ? 2 : 1;
    }
    const note = step.after?.(code);
    if (note) write(`${note}\n`);
  }
  return 0;
}

function onPath(cmd: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export async function run(args: string[]): Promise<number> {
  const v = parseVerbArgs(args, { out: { type: 'string' }, fresh: { type: 'boolean' }, 'fp-only': { type: 'boolean' }, only: { type: 'string' } }, HELP);
  const only = typeof v.only === 'string' ? v.only.split(',').map((s) => s.trim()) : v['fp-only'] === true ? [FP_PART] : DEMO_PARTS;
  const unknown = only.filter((p) => !DEMO_PARTS.includes(p));
  if (unknown.length || only.length === 0)
    throw new UsageError(`--only takes ${DEMO_PARTS.join(', ')} (comma-separated), not '${unknown.join(',') || v.only}'\n\n${HELP}`);
  if (typeof v.only === 'string' && v['fp-only'] === true) throw new UsageError('--fp-only and --only exclude each other');
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
  // Free ports for every server the demo starts (a real vLLM of the user's may hold 8011+).
  let nextPort = await freePortBlock(DEMO_PORTS);
  const lastPort = nextPort + DEMO_PORTS;
  const takePorts = (n: number): number => {
    if (nextPort + n > lastPort) throw new Error(`the demo's ${DEMO_PORTS} ports are all handed out`);
    nextPort += n;
    return nextPort - n;
  };
  const fpPort = takePorts(16);
  const services: DemoService[] = [];
  const standIn = noVllm || path.basename(env.VLLM_BIN ?? '') === 'fake-vllm';
  const fpSteps = fpDemoSteps({ out, make: fresh, force: v.fresh === true, fpPort, standIn });
  const steps: DemoStep[] = only.includes(FP_PART) ? fpSteps : [];
  const parts = Object.entries(RUN_TYPE_VERBS)
    .filter(([verb]) => only.includes(demoPartOf(verb)))
    .map(([, load]) => load);
  if (parts.length) {
    // Each run type's part, in the registry's order (runTypeVerbs.ts): the verbs a user would type next.
    const ctx: DemoContext = { out, fresh: v.fresh === true, standIn, env, repoRoot, takePorts };
    for (const load of parts) {
      const service = await load().demoService?.(ctx);
      if (!service) continue;
      services.push(service);
      Object.assign(env, service.env);
    }
    for (const load of parts) steps.push(...(load().demoSteps?.(ctx) ?? []));
  }
  try {
    const code = runDemoSteps(
      steps,
      out,
      (argv) => spawnSync(process.execPath, [cli, ...argv], { stdio: 'inherit', env }).status ?? 1,
      (t) => process.stderr.write(t),
    );
    if (code !== 0) return code;
  } finally {
    for (const s of services) s.stop();
  }
  const more = steps.flatMap((s) => (s.doneLine ? [`; ${s.doneLine}`] : [])).join('');
  const fpWords = only.includes(FP_PART) ? `package ${out}; report ${path.join(out, '.fpsweep', 'reports', 'report.md')}` : `parts ${only.join(', ')}`;
  process.stdout.write(`demo done: ${fpWords}${more}\n`);
  return 0;
}
