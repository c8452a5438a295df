// `<bin> serve MODEL --flag value ...` parsed the way vLLM's argparse does: unknown or malformed
// flags print usage + error to stderr and exit 2, so a launcher typo fails here as it would on a GPU host.

export interface ServeArgs {
  model: string;
  servedModelName: string;
  host: string;
  port: number;
  maxModelLen: number;
  limitImages: number;
  /** --limit-mm-per-prompt's video and audio items (the caption request sends one of each). */
  limitVideos: number;
  limitAudios: number;
  maxNumSeqs: number;
  gpuMemoryUtilization: number;
  apiKey: string | null;
  allowedLocalMediaPath: string | null;
  revision: string | null;
  /** --mm-processor-cache-gb: the processor cache's size in GiB (vLLM 0.11 MultiModalConfig default 4; 0 = off). */
  mmProcessorCacheGb: number;
  /** --max-num-batched-tokens: the scheduler's token budget per step (vllm/engine/arg_utils.py: 8192 for the OpenAI server on a ≥ 70 GiB GPU). */
  maxNumBatchedTokens: number;
  /** --api-server-count: API processes (each its own front end and processor cache; > 1 turns vLLM's IPC cache off). */
  apiServerCount: number;
  /** --reasoning-parser: the judge's thinking text goes to message.reasoning, the JSON schema applies after </think>. */
  reasoningParser: string | null;
  /** --mm-processor-kwargs (server-wide); null when not given. */
  mmProcessorKwargs?: Record<string, unknown> | null;
  /** --media-io-kwargs, keyed by modality; null when not given. */
  mediaIoKwargs?: Record<string, Record<string, unknown>> | null;
}

export class ArgError extends Error {}

export const USAGE = 'usage: vllm serve [model_tag] [options]';

type Kind = 'int' | 'float' | 'str' | 'json' | 'bool';
// The flags the launcher uses, plus a few harmless ones people add to real launch lines.
const FLAGS: Record<string, Kind> = {
  '--port': 'int',
  '--host': 'str',
  '--max-model-len': 'int',
  '--limit-mm-per-prompt': 'json',
  // The AVTime target's (SPEC-AVTIME §3): server-wide processor and media-loader kwargs, the processor cache size.
  '--mm-processor-kwargs': 'json',
  '--media-io-kwargs': 'json',
  '--max-num-seqs': 'int',
  '--gpu-memory-utilization': 'float',
  '--api-key': 'str',
  '--allowed-local-media-path': 'str',
  '--revision': 'str',
  '--served-model-name': 'str',
  '--reasoning-parser': 'str',
  '--tensor-parallel-size': 'int',
  '--dtype': 'str',
  '--seed': 'int',
  '--uvicorn-log-level': 'str',
  '--trust-remote-code': 'bool',
  '--enable-prefix-caching': 'bool',
  '--disable-log-requests': 'bool',
  '--disable-log-stats': 'bool',
  '--mm-processor-cache-gb': 'float',
  '--max-num-batched-tokens': 'int',
  '--api-server-count': 'int',
};

function convert(flag: string, kind: Kind, raw: string): unknown {
  switch (kind) {
    case 'int': {
      if (!/^-?\d+$/.test(raw)) throw new ArgError(`argument ${flag}: invalid int value: '${raw}'`);
      return Number(raw);
    }
    case 'float': {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n)) throw new ArgError(`argument ${flag}: invalid float value: '${raw}'`);
      return n;
    }
    case 'json': {
      try {
        return JSON.parse(raw);
      } catch {
        throw new ArgError(`argument ${flag}: invalid loads value: '${raw}'`);
      }
    }
    default:
      return raw;
  }
}

export function parseServeArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): ServeArgs {
  if (argv[0] !== 'serve') {
    throw new ArgError(`argument subparser: invalid choice: '${argv[0] ?? ''}' (choose from 'serve')`);
  }
  const values = new Map<string, unknown>();
  const positionals: string[] = [];
  const unknown: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const tok = argv[i];
    if (!tok.startsWith('--')) {
      positionals.push(tok);
      continue;
    }
    const eq = tok.indexOf('=');
    const flag = eq >= 0 ? tok.slice(0, eq) : tok;
    const kind = FLAGS[flag];
    if (kind === undefined) {
      unknown.push(tok);
      // argparse also reports the value that followed an unknown flag as unrecognised.
      if (eq < 0 && i + 1 < argv.length && !argv[i + 1].startsWith('--')) unknown.push(argv[++i]);
      continue;
    }
    if (kind === 'bool') {
      values.set(flag, true);
      continue;
    }
    let raw: string;
    if (eq >= 0) raw = tok.slice(eq + 1);
    else {
      if (i + 1 >= argv.length || argv[i + 1].startsWith('--')) throw new ArgError(`argument ${flag}: expected one argument`);
      raw = argv[++i];
    }
    values.set(flag, convert(flag, kind, raw));
  }
  if (positionals.length > 1) unknown.push(...positionals.slice(1));
  if (unknown.length) throw new ArgError(`unrecognized arguments: ${unknown.join(' ')}`);
  const model = positionals[0];
  if (!model) throw new ArgError('the following arguments are required: model_tag');

  const limit = values.get('--limit-mm-per-prompt');
  // vLLM's default per-modality limit for online serving; each modality's value must be an int.
  const limits = { image: 999, video: 999, audio: 999 };
  if (limit !== undefined) {
    const given = limit as Record<string, unknown>;
    const bad =
      typeof limit !== 'object' || limit === null || (['image', 'video', 'audio'] as const).some((k) => given[k] !== undefined && !Number.isInteger(given[k]));
    if (bad) throw new ArgError(`argument --limit-mm-per-prompt: invalid loads value: '${JSON.stringify(limit)}'`);
    for (const k of ['image', 'video', 'audio'] as const) if (typeof given[k] === 'number') limits[k] = given[k];
  }
  const port = (values.get('--port') as number | undefined) ?? 8000;
  if (port < 0 || port > 65535) throw new ArgError(`argument --port: invalid int value: '${port}'`);
  const util = (values.get('--gpu-memory-utilization') as number | undefined) ?? 0.9;
  if (!(util > 0 && util <= 1)) throw new ArgError(`argument --gpu-memory-utilization: must be in (0, 1], got ${util}`);
  const maxNumSeqs = (values.get('--max-num-seqs') as number | undefined) ?? 256;
  if (maxNumSeqs < 1) throw new ArgError(`argument --max-num-seqs: must be ≥ 1, got ${maxNumSeqs}`);
  const maxModelLen = (values.get('--max-model-len') as number | undefined) ?? 262144; // Qwen3-VL's native length
  if (maxModelLen < 1) throw new ArgError(`argument --max-model-len: must be ≥ 1, got ${maxModelLen}`);
  const mmProcessorCacheGb = (values.get('--mm-processor-cache-gb') as number | undefined) ?? 4;
  if (mmProcessorCacheGb < 0) throw new ArgError(`argument --mm-processor-cache-gb: must be ≥ 0, got ${mmProcessorCacheGb}`);
  const maxNumBatchedTokens = (values.get('--max-num-batched-tokens') as number | undefined) ?? 8192;
  if (maxNumBatchedTokens < 1) throw new ArgError(`argument --max-num-batched-tokens: must be ≥ 1, got ${maxNumBatchedTokens}`);
  const apiServerCount = (values.get('--api-server-count') as number | undefined) ?? 1;
  if (apiServerCount < 1) throw new ArgError(`argument --api-server-count: must be ≥ 1, got ${apiServerCount}`);
  return {
    mmProcessorCacheGb,
    maxNumBatchedTokens,
    apiServerCount,
    model,
    servedModelName: (values.get('--served-model-name') as string | undefined) ?? model,
    host: (values.get('--host') as string | undefined) ?? '0.0.0.0',
    port,
    maxModelLen,
    limitImages: limits.image,
    limitVideos: limits.video,
    limitAudios: limits.audio,
    maxNumSeqs,
    gpuMemoryUtilization: util,
    // vLLM takes the key from --api-key, else from the VLLM_API_KEY environment variable.
    apiKey: (values.get('--api-key') as string | undefined) ?? (env.VLLM_API_KEY || null),
    allowedLocalMediaPath: (values.get('--allowed-local-media-path') as string | undefined) ?? null,
    revision: (values.get('--revision') as string | undefined) ?? null,
    reasoningParser: reasoningParser(values.get('--reasoning-parser') as string | undefined),
    mmProcessorKwargs: (values.get('--mm-processor-kwargs') as Record<string, unknown> | undefined) ?? null,
    mediaIoKwargs: (values.get('--media-io-kwargs') as Record<string, Record<string, unknown>> | undefined) ?? null,
  };
}

// A few of the names vllm/reasoning/__init__.py registers (argparse refuses any other with "invalid choice").
const REASONING_PARSERS = ['qwen3', 'deepseek_r1', 'deepseek_v3', 'glm45', 'granite', 'mistral', 'openai_gptoss'];

function reasoningParser(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  if (!REASONING_PARSERS.includes(raw)) {
    throw new ArgError(`argument --reasoning-parser: invalid choice: '${raw}' (choose from ${REASONING_PARSERS.map((p) => `'${p}'`).join(', ')}, …)`);
  }
  return raw;
}
