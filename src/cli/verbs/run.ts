// fpsweep run: the sweep in the foreground (progress on stderr, a last line in numbers on stdout), or
// with --detach in a background worker that survives the shell (prints its pid and returns).
import { PackageLayout } from '../../core/protocols/fp/package/layout';
import { InputError } from '../../core/errors';
import { DEFAULT_CONDITIONS, PILOT_BENCHMARKS, parseConditions } from '../../core/protocols/fp/rules/conditions';
import { defaultSweepDeps } from '../../core/protocols/fp/sweep/adapters';
import { startDetachedWorker } from '../../core/protocols/fp/sweep/startDetached';
import { liveLockHolder, LockHeldError } from '../../core/runner/lock';
import { FAIL_DOWN_S, runOptionsSchema, type RunOptions } from '../../core/protocols/fp/sweep/runOptions';
import { runSweep } from '../../core/protocols/fp/sweep/sweep';
import { DEFAULT_FAIL_FAST } from '../../core/runner/failFast';
import { statusLine } from '../../core/protocols/fp/status/formatStatus';
import { stopReasonLines } from '../../core/runner/stopReason';
import {
  checkBenchmarks,
  fpPackageRoot,
  listFlag,
  listOption,
  numberFlag,
  parseOptionsOrUsage,
  parseVerbArgs,
  pilotOption,
  requirePackage,
  shardOption,
  stringFlag,
  type OptionSpec,
} from '../../core/cli/options';
import { FRAMES_ON, type FramesOn } from '../../core/protocols/fp/frames/gpu/framesOn';

export const summary = 'the sweep (foreground; --detach for a background worker); --pilot, --bench, --conds, --endpoints';

const HELP = `usage: fpsweep run --package DIR [--pilot] [--bench A,B] [--conds c1,c2] [--endpoints URL,...]
                   [--detach] [--ngpu N] [--workers N] [--max-seqs N] [--gpu-util X] [--shard K/N] [--base-port N]

Runs the sweep: launches one vLLM server per GPU (or uses --endpoints), sends every missing
(benchmark, item, condition) and appends its raw record and CSV row. Resumable: rows already in
results/conditions_results.csv are skipped; re-running continues where it stopped.

  --package DIR     the run package (or FPSWEEP_PACKAGE)
  --pilot           the pilot benchmarks (${PILOT_BENCHMARKS.join(', ')}; or PILOT=1)
  --bench A,B       only these benchmarks (default: BENCH, else all)
  --conds c1,c2     only these conditions (default: CONDS, else the 13 task-11 conditions)
  --endpoints URLS  use running servers (e.g. http://10.0.0.5:8011) instead of launching them;
                    their API key, if any, from FPSWEEP_API_KEY
  --endpoint-frames file|data  how --endpoints servers get the frames (ENDPOINT_FRAMES; default data:
                    base64 in the request; file: file:// URLs into the package's frame store, for
                    servers on this host started with --allowed-local-media-path covering it)
  --detach          run in a background worker; returns at once with its pid
                    (follow with \`fpsweep status --wait\`, stop with \`fpsweep stop\`)
  --ngpu N          GPUs to serve on (NGPU; default all)
  --workers N       requests in flight per server (WORKERS; default 6); servers we launch on GPUs
                    nvidia-smi lists take up to MAX_SEQS at once within their KV cache
  --max-seqs N      vLLM --max-num-seqs (MAX_SEQS; default 32)
  --gpu-util X      vLLM --gpu-memory-utilization (GPU_UTIL; default 0.85)
  --base-port N     the launched servers listen on N, N+1, … one per GPU (default 8011)
  --decode-workers N  videos decoded in parallel (default: min(cores - 1, max(4, cores/4)))
  --frames-on W     where frames are made (FRAMES_ON): cpu (default), gpu (NVDEC + GPU resize, where
                    ffmpeg has the cuda hwaccel and PYTHON has CUDA torch; else the CPU, with the reason),
                    auto (gpu only when the pilot found the host's CPU the bound)
  --fail-same K     stop when K requests in a row on one server fail the same way
                    (FPSWEEP_FAIL_SAME; default ${DEFAULT_FAIL_FAST.sameInARow}; 0 = off)
  --fail-first N    stop when most of the run's first N requests fail (FPSWEEP_FAIL_FIRST; default ${DEFAULT_FAIL_FAST.firstRequests})
  --fail-videos M   stop when the first M videos all fail to decode (FPSWEEP_FAIL_VIDEOS; default ${DEFAULT_FAIL_FAST.firstPrepared})
  --fail-down S     with --endpoints: stop when every server has been unreachable (refused, reset, /health
                    down) for S seconds (FPSWEEP_FAIL_DOWN; default ${FAIL_DOWN_S}; 0 = off: the run waits up to 10 min
                    for them); restart it, then run the same command again: it resumes
  --shard K/N       only part K of N (1-based; SHARD): the items whose video hash falls in it,
                    for N hosts each on its own copy of the package; bring the copies back
                    with \`fpsweep merge --into DIR COPY...\`. \`auto\` (or auto/N) reads K and N from a
                    Slurm array job, a Kubernetes indexed Job (N from auto/N or FPSWEEP_SHARD_COUNT)
                    or NODE_RANK/NNODES

Before any row, one unit of the plan goes to each server as the sweep sends it (the pre-flight,
logs/preflight.json); a refusal stops the run with the server's words.

VLLM_BIN names the vLLM executable (default vllm). Exit: 0 done (failures are logged and counted),
1 failed (e.g. a server cannot serve the 65,536-token context, the pre-flight or fail-fast stopped
the run: the reason, what it likely means and what to do are printed), 2 bad usage or input, or the
package is busy with another worker.

Rerun: resumes where it stopped: rows already in results/ are skipped, items that failed are asked again,
nothing is written twice.`;

/** The sweep's flags, each with the rule its value follows (the flag layer checks them before anything starts). */
export const flags = {
  package: { type: 'string', short: 'p', meta: 'DIR', value: { kind: 'path', is: 'dir', env: 'FPSWEEP_PACKAGE', root: fpPackageRoot } },
  pilot: { type: 'boolean' },
  bench: { type: 'string', value: { kind: 'list' } },
  conds: { type: 'string', value: { kind: 'list', env: 'CONDS' } },
  endpoints: { type: 'string', value: { kind: 'list', env: 'FPSWEEP_ENDPOINTS' } },
  'endpoint-frames': { type: 'string', value: { kind: 'enum', values: ['file', 'data'], env: 'ENDPOINT_FRAMES' } },
  detach: { type: 'boolean' },
  ngpu: { type: 'string', value: { kind: 'int', min: 1, max: 4096, env: 'NGPU' } },
  workers: { type: 'string', value: { kind: 'int', min: 1, max: 100_000, env: 'WORKERS', default: 6 } },
  'max-seqs': { type: 'string', value: { kind: 'int', min: 1, max: 100_000, env: 'MAX_SEQS', default: 32 } },
  'gpu-util': { type: 'string', value: { kind: 'number', min: 0.01, max: 1, env: 'GPU_UTIL', default: 0.85 } },
  'decode-workers': { type: 'string', value: { kind: 'int', min: 1, max: 4096, env: 'DECODE_WORKERS' } },
  'frames-on': { type: 'string', value: { kind: 'enum', values: FRAMES_ON, env: 'FRAMES_ON', default: 'cpu' } },
  'fail-same': { type: 'string', value: { kind: 'int', min: 0, max: 1_000_000, env: 'FPSWEEP_FAIL_SAME', default: DEFAULT_FAIL_FAST.sameInARow } },
  'fail-first': { type: 'string', value: { kind: 'int', min: 0, max: 1_000_000, env: 'FPSWEEP_FAIL_FIRST', default: DEFAULT_FAIL_FAST.firstRequests } },
  'fail-videos': { type: 'string', value: { kind: 'int', min: 0, max: 1_000_000, env: 'FPSWEEP_FAIL_VIDEOS', default: DEFAULT_FAIL_FAST.firstPrepared } },
  'fail-down': { type: 'string', value: { kind: 'int', min: 0, max: 1_000_000, env: 'FPSWEEP_FAIL_DOWN', default: FAIL_DOWN_S } },
  shard: { type: 'string' },
  'base-port': { type: 'string', value: { kind: 'int', min: 1024, max: 65_535 } },
} satisfies OptionSpec;

export function parseRunArgs(args: string[]): { options: RunOptions; detach: boolean } {
  const v = parseVerbArgs(args, flags, HELP);
  const root = requirePackage(v, HELP, fpPackageRoot);
  const pilot = pilotOption(v.pilot);
  // --bench beats --pilot, which beats the BENCH knob (as dry-run reads them).
  const benchmarks = listFlag(v, 'bench') ?? (pilot ? undefined : listOption(undefined, 'BENCH'));
  checkBenchmarks(listFlag(v, 'bench') ? '--bench' : 'BENCH', root, benchmarks); // before "starting", the run identity or a server
  const conditions = listFlag(v, 'conds');
  if (conditions) parseConditions(conditions); // a bad name is an InputError now, before anything starts
  const options = parseOptionsOrUsage(runOptionsSchema, HELP, {
    package: new PackageLayout(root).root,
    pilot,
    benchmarks,
    conditions,
    endpoints: listFlag(v, 'endpoints'),
    endpointFrames: stringFlag(v, 'endpoint-frames'),
    ngpu: numberFlag(v, 'ngpu'),
    workers: numberFlag(v, 'workers'),
    maxSeqs: numberFlag(v, 'max-seqs'),
    gpuUtil: numberFlag(v, 'gpu-util'),
    vllmBin: process.env.VLLM_BIN || 'vllm',
    decodeWorkers: numberFlag(v, 'decode-workers'),
    framesOn: stringFlag(v, 'frames-on') as FramesOn,
    failSameInARow: numberFlag(v, 'fail-same'),
    failFirstRequests: numberFlag(v, 'fail-first'),
    failFirstVideos: numberFlag(v, 'fail-videos'),
    failDownS: numberFlag(v, 'fail-down'),
    shard: shardOption(v.shard),
    basePort: numberFlag(v, 'base-port'),
  });
  return { options, detach: v.detach === true };
}

export async function run(args: string[]): Promise<number> {
  const { options, detach } = parseRunArgs(args);
  const layout = new PackageLayout(options.package);
  const holder = await liveLockHolder(layout);
  if (holder) throw new LockHeldError(holder, layout.lockFile);
  if (detach) {
    const w = await startDetachedWorker(options);
    process.stdout.write(`worker started: pid ${w.pid}; log ${w.logFile}; follow with \`fpsweep status --package ${layout.root} --wait\`\n`);
    return 0;
  }
  const tty = process.stderr.isTTY === true;
  let lastPrint = 0;
  let lastLine = '';
  const res = await runSweep(options, defaultSweepDeps, {
    onLine: (line) => {
      if (tty && lastLine) process.stderr.write('\r\x1b[K');
      process.stderr.write(line + '\n');
      lastLine = '';
    },
    onStatus: (s) => {
      const now = Date.now();
      const line = statusLine(s);
      if (tty) {
        process.stderr.write(`\r\x1b[K${line.slice(0, (process.stderr.columns || 120) - 1)}`);
        lastLine = line;
      } else if (now - lastPrint >= 5000 || s.summary) {
        process.stderr.write(line + '\n');
        lastPrint = now;
      }
    },
  });
  if (tty && lastLine) process.stderr.write('\n');
  process.stdout.write(res.summary + '\n');
  if (res.stopReason) process.stdout.write(stopReasonLines(res.stopReason).slice(2).join('\n') + '\n');
  return res.exitCode;
}

export { DEFAULT_CONDITIONS, InputError };
