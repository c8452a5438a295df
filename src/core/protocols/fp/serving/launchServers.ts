// Frames × Pixels' servers (SPEC §5): one vLLM per GPU, each `serve` line built here (the model at its revision,
// the context, `--limit-mm-per-prompt {"image": N}`, MAX_SEQS, GPU_UTIL, port 8011 + GPU, the frame store as the
// one media folder, the processor cache sized from the host) and MAX_SEQS / GPU_UTIL in the advice; the engine's
// launchServerGroups (serving/launcher.ts) starts, watches and stops them.
import { chooseGpus } from '../../../serving/gpus';
import { mediaLoadingThreads, processorCacheGb, processorThreads } from '../../../serving/frontEndSizing';
import { launchServerGroups, type Fleet, type MonitorOptions, type ServerSpec } from '../../../serving/launcher';
import type { PackageLayout } from '../package/layout';

/** What every server of a one-per-GPU launch serves: the protocol's model, context and images per prompt. */
export interface ServedModel {
  name: string;
  revision: string;
  /** --max-model-len: the protocol's context, never lowered. */
  maxModelLen: number;
  /** --limit-mm-per-prompt's image count. */
  maxImages: number;
}

export interface LaunchOptions extends MonitorOptions {
  layout: PackageLayout;
  model: ServedModel;
  /** --allowed-local-media-path, as the caller resolved it (vLLM takes it literally: pass a real path). */
  allowedMediaPath: string;
  /** Folders to make before start (vLLM refuses to start when the allowed media path does not exist). */
  mediaDirs: readonly string[];
  /** NGPU: how many GPUs to use (default: all nvidia-smi lists; 1 with a warning without it). */
  ngpu?: number;
  /** Use exactly these GPU indices (skips detection). */
  gpus?: number[];
  maxSeqs: number;
  gpuUtil: number;
  /**
   * The host, to size vLLM's front end per server (serving/frontEndSizing.ts): `--mm-processor-cache-gb` from its RAM and
   * VLLM_MEDIA_LOADING_THREAD_COUNT from its cores, OMP_NUM_THREADS (the API process's torch threads) from its
   * cores beside the servers and `decodePool`, the caller's concurrent frame decodes (0 if none). Absent: vLLM's
   * defaults (4 GiB, 8 threads, torch's one thread a core), nothing added.
   */
  host?: { ramBytes: number; cores: number; decodePool?: number };
  /** Executable started as `<bin> serve …` (default $VLLM_BIN, else `vllm`). */
  vllmBin?: string;
  /** Extra environment for the servers (on top of ours). */
  env?: Record<string, string | undefined>;
  /** Port of GPU i is basePort + i (SPEC: 8011). */
  basePort?: number;
  /** Longest wait for one server's /health after start (model download + load). */
  startTimeoutMs?: number;
  /** Runner log sink for warnings and state changes. */
  log?: (line: string) => void;
}

/** Launches one server per GPU and resolves when all answer /health (or throws, having stopped them). */
export async function launchServers(options: LaunchOptions): Promise<Fleet> {
  let gpus = options.gpus;
  if (!gpus) {
    const choice = await chooseGpus(options.ngpu);
    if (choice.warning) options.log?.(`warning: ${choice.warning}`);
    gpus = choice.gpus;
  }
  const layout = options.layout;
  const basePort = options.basePort ?? 8011;
  const host = options.host;
  const cacheArgs = host ? ['--mm-processor-cache-gb', String(processorCacheGb(host.ramBytes, gpus.length))] : [];
  const frontEndEnv = host
    ? {
        VLLM_MEDIA_LOADING_THREAD_COUNT: String(mediaLoadingThreads(host.cores, gpus.length)),
        OMP_NUM_THREADS: String(processorThreads(host.cores, gpus.length, host.decodePool ?? 0)),
      }
    : {};
  const servers: ServerSpec[] = gpus.map((gpu) => ({
    id: `gpu${gpu}`,
    gpus: [gpu],
    port: basePort + gpu,
    logFile: layout.vllmLog(gpu),
    args: [
      'serve',
      options.model.name,
      '--revision',
      options.model.revision,
      '--max-model-len',
      String(options.model.maxModelLen),
      '--limit-mm-per-prompt',
      `{"image": ${options.model.maxImages}}`,
      '--max-num-seqs',
      String(options.maxSeqs),
      '--gpu-memory-utilization',
      String(options.gpuUtil),
      '--port',
      String(basePort + gpu),
      '--host',
      '127.0.0.1',
      '--allowed-local-media-path',
      options.allowedMediaPath,
      ...cacheArgs,
    ],
  }));
  return launchServerGroups({
    ...options,
    env: { ...frontEndEnv, ...options.env },
    servers,
    places: { root: layout.root, logsDir: layout.logsDir, launchParams: layout.launchParams, stateDir: layout.stateDir },
    mkdirs: options.mediaDirs,
    contextTokens: options.model.maxModelLen,
    oomAdvice: `; if it recurs, lower MAX_SEQS (now ${options.maxSeqs})`,
    contextAdvice:
      'The run stops here: the context is fixed by the protocol and is never lowered. ' +
      `Free the GPU's memory (other processes: nvidia-smi), raise GPU_UTIL (now ${options.gpuUtil}) or use a GPU with more memory, then run again ` +
      '(finished rows are kept).',
  });
}
