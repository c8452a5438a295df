// What a vLLM server or executable says about itself: the models it serves (GET /v1/models), its version
// (GET /version, else the executable's `--version`), and that version held against a run type's pin. One probe
// for the runs' pre-flights and for doctor; what a run type requires of the answers (a context, a model) is its own.
import { z } from 'zod';
import { probe } from '../runner/probe';
import type { VllmClient } from './client';
import { UsageError } from '../errors';
import { parseVllmVersion, pinAccepts, pinRefusal, type VllmPin } from './vllmVersion';
import { parseBoundedJson } from '../io/boundedJson';

/** The part of a client the probe uses (a test passes its own). */
export type ProbeClient = Pick<VllmClient, 'get' | 'endpoint'>;

export interface ServedModel {
  id: string;
  /** The model it was loaded from, when the server names one (a served-model-name alias). */
  root: string | null;
  maxModelLen: number | null;
}

const modelsSchema = z
  .object({
    data: z.array(z.object({ id: z.string(), root: z.string().optional(), max_model_len: z.number().int().optional() }).passthrough()).min(1),
  })
  .passthrough();

/** GET /v1/models: the models the server serves. Throws when it does not answer 200 with at least one. */
export async function servedModels(client: ProbeClient, timeoutMs = 10_000): Promise<ServedModel[]> {
  const res = await client.get('/v1/models', timeoutMs);
  if (res.status !== 200) throw new Error(`${client.endpoint.url}/v1/models answered HTTP ${res.status}: ${res.text.slice(0, 200)}`);
  let body: unknown;
  try {
    body = parseBoundedJson(res.text);
  } catch {
    throw new Error(`${client.endpoint.url}/v1/models: not JSON`);
  }
  const parsed = modelsSchema.safeParse(body);
  if (!parsed.success) throw new Error(`${client.endpoint.url}/v1/models: unexpected body`);
  return parsed.data.data.map((m) => ({ id: m.id, root: m.root ?? null, maxModelLen: m.max_model_len ?? null }));
}

/** GET /version's version, or null when the server does not answer it (older builds, the stand-in). */
export async function serverVersion(client: ProbeClient): Promise<string | null> {
  const res = await client.get('/version').catch(() => null);
  if (res?.status !== 200) return null;
  try {
    return (parseBoundedJson(res.text) as { version?: string }).version ?? null;
  } catch {
    return null;
  }
}

/** One vLLM executable's version: `BIN --version`, else (the default `vllm` only) python3's `import vllm`. */
export async function vllmVersionOf(bin: string, env: NodeJS.ProcessEnv): Promise<{ version: string; how: string } | { error: string }> {
  const r = await probe(bin, ['--version'], env, 60_000);
  if (r.ok) return { version: plainVersion((r.stdout.trim().split('\n').pop() ?? '').trim()), how: `\`${bin} --version\`` };
  if (bin !== 'vllm') return { error: r.message };
  const py = await probe(env.PYTHON || 'python3', ['-c', 'import vllm; print(vllm.__version__)'], env, 120_000);
  if (py.ok) return { version: plainVersion(py.stdout.trim().split('\n').pop()!.trim()), how: '`python3 -c "import vllm"`' };
  return { error: `${r.message}; and python3 cannot import vllm` };
}

function plainVersion(v: string): string {
  return v.replace(/^v/, '').match(/\d+\.\d+\.\d+\S*/)?.[0] ?? v;
}

/**
 * A running server's vLLM version: GET /version, else, for a server we launched (`launchedBin`), its
 * executable's. Null when neither names a version.
 */
export async function runningVllmVersion(client: ProbeClient, launchedBin: string | null, env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  const answered = await serverVersion(client);
  if (answered !== null) return answered;
  if (launchedBin === null) return null;
  const found = await vllmVersionOf(launchedBin, env);
  return 'version' in found && parseVllmVersion(found.version) ? found.version : null;
}

/** Throws the pin's refusal (exit 2: what the server reports, what the run type needs and why, `fix`) outside the pin. */
export function assertInPin(pin: VllmPin, version: string | null, where: string, fix: string): void {
  if (version === null || !pinAccepts(pin, version)) throw new UsageError(pinRefusal(pin, version, where, fix));
}
