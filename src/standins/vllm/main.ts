// Stand-in vLLM entry point (bundled to dist/standin-vllm.js; bin/fake-vllm runs it).
// Started exactly like `vllm serve MODEL --port … --max-model-len … …`; knobs in ./README.md.
import { ArgError, USAGE, parseServeArgs, type ServeArgs } from './args';
import { readStandinEnv, type StandinEnv } from './config';
import { readAvtimeKnobs, standinRole } from './avtime/knobs';
import { logLine } from './log';
import { ROLE_RELEASE, standinVersion } from './version';
import { startStandinServer } from './server';
import * as msg from '../../core/serving/vllmMessages';

/** Bytes of KV cache per token for Qwen3-VL-8B (36 layers × 8 KV heads × 128 dims × K,V × bf16). */
const KV_BYTES_PER_TOKEN = 36 * 8 * 128 * 2 * 2;
const GIB = 1024 ** 3;

function refusesContext(args: ServeArgs, env: StandinEnv): boolean {
  const { refuseContext, kvCacheTokens } = env.faults;
  return refuseContext === 1 || (kvCacheTokens > 0 && args.maxModelLen > kvCacheTokens);
}

function printKvCacheRefusal(args: ServeArgs, env: StandinEnv): void {
  const { kvCacheTokens } = env.faults;
  const fitTokens = kvCacheTokens > 0 ? Math.min(kvCacheTokens, args.maxModelLen - 16) : Math.floor(args.maxModelLen / 2);
  const estimated = Math.max(0, Math.floor(fitTokens / 16) * 16);
  const needed = (args.maxModelLen * KV_BYTES_PER_TOKEN) / GIB;
  const available = (fitTokens * KV_BYTES_PER_TOKEN) / GIB;
  logLine('ERROR', 'core.py:708', 'EngineCore failed to start.', process.stderr);
  process.stderr.write('Traceback (most recent call last):\n');
  process.stderr.write('  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py", line 686, in check_enough_kv_cache_memory\n');
  process.stderr.write(msg.kvCacheTooSmall(args.maxModelLen, needed, available, estimated) + '\n');
  process.stderr.write('RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}\n');
}

/** The vLLM release the stand-in imitates for the FP sweep; `vllm --version` prints it (doctor reads it). */
export const STANDIN_VLLM_VERSION = ROLE_RELEASE.fp;

async function main(argv: string[]): Promise<number> {
  let args: ServeArgs;
  let env: StandinEnv;
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
    // vLLM prints the bare release on stdout (vllm/entrypoints/cli/main.py: argparse action='version').
    // FPSWEEP_STANDIN_VERSION: report another release (doctor's version check is tested with it);
    // FPSWEEP_STANDIN_ROLE target/judge: the release that role plays.
    const forced = process.env.FPSWEEP_STANDIN_ROLE;
    process.stdout.write(`${standinVersion(forced === 'target' || forced === 'judge' ? forced : 'fp')}\n`);
    return 0;
  }
  try {
    args = parseServeArgs(argv);
  } catch (e) {
    if (e instanceof ArgError) {
      process.stderr.write(`${USAGE}\nvllm serve: error: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  try {
    env = readStandinEnv();
    standinRole(args);
    readAvtimeKnobs(); // read again by the server; checked here so a bad knob exits 2 before the port opens
  } catch (e) {
    process.stderr.write(`stand-in vLLM: bad environment: ${(e as Error).message}\n`);
    return 2;
  }
  logLine('INFO', 'api_server.py:1839', `vLLM API server version ${standinVersion(standinRole(args))} (fpsweep stand-in)`, process.stdout);
  logLine(
    'INFO',
    'utils.py:233',
    `non-default args: {'model_tag': '${args.model}', 'host': '${args.host}', 'port': ${args.port}, ` +
      `'max_model_len': ${args.maxModelLen}, 'limit_mm_per_prompt': {'image': ${args.limitImages}}, ` +
      `'max_num_seqs': ${args.maxNumSeqs}, 'gpu_memory_utilization': ${args.gpuMemoryUtilization}${args.revision ? `, 'revision': '${args.revision}'` : ''}}`,
    process.stdout,
  );
  if (refusesContext(args, env)) {
    // A real server loads the weights (port closed) before it finds the KV cache too small.
    await new Promise((r) => setTimeout(r, env.faults.startupDelayMs));
    printKvCacheRefusal(args, env);
    return 1;
  }
  const server = await startStandinServer(args, env);
  const stop = () => {
    logLine('INFO', 'launcher.py:99', 'Shutting down FastAPI HTTP server.', process.stdout);
    void server.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  // Unlike vLLM, a launched stand-in leaves with its launcher (whose pid the launcher passes in
  // FPSWEEP_STANDIN_OWNER_PID): a runner killed with -9 in a test must not leave stand-ins behind.
  // Real orphans are stopped by the next launch, from .fpsweep/servers.json.
  const owner = Number(process.env.FPSWEEP_STANDIN_OWNER_PID);
  if (Number.isInteger(owner) && owner > 0) {
    setInterval(() => {
      try {
        process.kill(owner, 0);
      } catch {
        logLine('INFO', 'standin', `launcher process ${owner} is gone; shutting down`, process.stdout);
        stop();
      }
    }, 1_000).unref();
  }
  return -1; // keep serving
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err) => {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
