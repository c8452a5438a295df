// The target and judge servers of an AVTime run, on the engine's launcher: one `vllm serve` per GPU group
// (CUDA_VISIBLE_DEVICES = the group, --tensor-parallel-size TP), on 127.0.0.1 with a generated key; or the
// endpoints the user gave. Also what run_config.json records about them (launch lines, vLLM version).
import { promises as fs } from 'node:fs';
import { z } from 'zod';
import { launchServerGroups, useEndpoints, type Fleet, type ServerSpec } from '../../../serving/launcher';
import { VllmClient, type Endpoint } from '../../../serving/client';
import { UsageError } from '../../../errors';
import { AppendFile } from '../../../runner/appendFile';
import type { AvtimeOutputRoot } from './layout';
import { assertInPin, runningVllmVersion, servedModels } from '../../../serving/serverProbe';
import { roleLaunch, type ServerRole } from './roleLaunch';
import { checkTopology } from './topology';
import { waitUntilUp } from '../../../serving/waitUntilUp';
import { parseBoundedJson } from '../../../io/boundedJson';

export const serverRecordSchema = z.object({
  role: z.enum(['target', 'judge']),
  model: z.string(),
  served_model: z.string(),
  launched: z.boolean(),
  gpu_groups: z.array(z.array(z.number().int())),
  tensor_parallel_size: z.number().int().nullable(),
  endpoints: z.array(z.string()),
  launch_lines: z.array(z.string()),
  vllm_version: z.string().nullable(),
  max_model_len: z.number().int().nullable(),
  at: z.string(),
});
export type ServerRecord = z.infer<typeof serverRecordSchema>;

export interface AvtimeServers {
  fleet: Fleet;
  /** `signal` is read live: it is the current incarnation's upSignal (a restart makes a new one). */
  endpoints: (Endpoint & { readonly signal: AbortSignal })[];
  /** Resolves true once every server is up (after a restart), false if one is down for good, at the timeout or on `signal`. */
  waitUntilUp(timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
  /** The model name to put in request bodies. */
  servedModel: string;
  record: ServerRecord;
}

/** Where a role's servers keep their logs and record (an AVTime run's output root, or a direct DVC run's folder). */
export type ServerPlaces = Pick<AvtimeOutputRoot, 'root' | 'vllmLog' | 'logsDir' | 'launchParams' | 'stateDir' | 'serversLog'>;

export interface StartServersOptions {
  role: ServerRole;
  layout: ServerPlaces;
  model?: string;
  revision?: string;
  groups: number[][];
  tp: number;
  basePort: number;
  endpoints?: string[];
  /** The target's --allowed-local-media-path (already a real path). */
  mediaRoot?: string;
  /** This role's executable (--target-vllm-bin / --judge-vllm-bin, else VLLM_BIN). */
  vllmBin?: string;
  log?: (line: string) => void;
  startTimeoutMs?: number;
  /** Aborted when the run is stopped: a launch under way is cut (its servers stopped) and throws. */
  signal?: AbortSignal;
}

export function serveArgs(o: {
  model: string;
  revision?: string;
  tp: number;
  port: number;
  maxModelLen?: number;
  mediaRoot?: string;
  extra?: readonly string[];
}): string[] {
  return [
    'serve',
    o.model,
    ...(o.revision ? ['--revision', o.revision] : []),
    '--tensor-parallel-size',
    String(o.tp),
    ...(o.maxModelLen ? ['--max-model-len', String(o.maxModelLen)] : []),
    ...(o.mediaRoot ? ['--allowed-local-media-path', o.mediaRoot] : []),
    ...(o.extra ?? []),
    '--port',
    String(o.port),
    '--host',
    '127.0.0.1',
  ];
}

export async function startServers(o: StartServersOptions): Promise<AvtimeServers> {
  const plan = roleLaunch(o.role);
  let fleet: Fleet;
  const launched = !o.endpoints?.length;
  if (launched) {
    if (!o.model)
      throw new UsageError(
        `${o.role === 'target' ? 'TARGET_MODEL (--target-model)' : 'JUDGE_MODEL (--judge-model)'} ` +
          `is required unless --${o.role}-endpoint${o.role === 'target' ? 's' : ''} is given`,
      );
    checkTopology(o.role, o.groups, o.tp);
    const specs: ServerSpec[] = o.groups.map((gpus, k) => ({
      id: `${o.role}${k}`,
      gpus,
      port: o.basePort + k,
      logFile: o.layout.vllmLog(`${o.role}${k}`),
      args: serveArgs({
        model: o.model!,
        revision: o.revision,
        tp: o.tp,
        port: o.basePort + k,
        maxModelLen: plan.maxModelLen,
        mediaRoot: o.mediaRoot,
        extra: plan.extraArgs,
      }),
    }));
    fleet = await launchServerGroups({
      servers: specs,
      places: { root: o.layout.root, logsDir: o.layout.logsDir, launchParams: o.layout.launchParams, stateDir: o.layout.stateDir },
      vllmBin: o.vllmBin,
      mkdirs: o.mediaRoot ? [o.mediaRoot] : [],
      contextTokens: plan.maxModelLen,
      contextAdvice: plan.contextAdvice,
      startTimeoutMs: o.startTimeoutMs,
      log: o.log,
      signal: o.signal,
    });
  } else {
    fleet = await useEndpoints(o.endpoints!, { log: o.log });
  }
  const handles = fleet.handles;
  const bin = o.vllmBin ?? process.env.VLLM_BIN ?? 'vllm';
  const probe = new VllmClient({ url: handles[0].url, apiKey: handles[0].apiKey }, { connections: 1, maxRetries: 0 });
  let servedModel = o.model;
  let maxModelLen: number | null = null;
  let version: string | null = null;
  try {
    const models = await servedModels(probe).catch(() => []);
    if (!servedModel) servedModel = models[0]?.id;
    maxModelLen = models.find((m) => m.id === servedModel)?.maxModelLen ?? null;
    version = await runningVllmVersion(probe, launched ? bin : null);
  } finally {
    await probe.close();
  }
  // Each role runs on its own vLLM, held against its own pin: a server outside it stops the run here, before
  // any request (exit 2), whether we launched it or it was given.
  try {
    const where = launched ? `the ${o.role} server (${bin})` : `--${o.role}-endpoint${o.role === 'target' ? 's' : ''} ${handles[0].url}`;
    const fix = launched
      ? `Install a vLLM of that range and name it with ${plan.binFlag} (default VLLM_BIN); the FP sweep keeps its own 0.11 on VLLM_BIN.`
      : `Serve the ${o.role} model with a vLLM of that range.`;
    assertInPin(plan.pin, version, where, fix);
  } catch (err) {
    await fleet.stop();
    throw err;
  }
  if (!servedModel) {
    await fleet.stop();
    throw new UsageError(`--${o.role}-endpoint: ${handles[0].url}/v1/models names no model; give --${o.role}-model`);
  }
  const record: ServerRecord = {
    role: o.role,
    model: o.model ?? servedModel,
    served_model: servedModel,
    launched,
    gpu_groups: launched ? o.groups : [],
    tensor_parallel_size: launched ? o.tp : null,
    endpoints: handles.map((h) => h.url),
    launch_lines: handles.map((h) => h.launchLine).filter((l): l is string => l !== null),
    vllm_version: version,
    max_model_len: maxModelLen,
    at: new Date().toISOString(),
  };
  const serversLog = new AppendFile(o.layout.root, o.layout.serversLog);
  await serversLog.append(JSON.stringify(record) + '\n').finally(() => serversLog.close());
  const endpoints = handles.map((h) => ({
    url: h.url,
    apiKey: h.apiKey,
    get signal() {
      return h.upSignal;
    },
  }));
  return { fleet, endpoints, servedModel, record, waitUntilUp: (ms, signal) => waitUntilUp(fleet, ms, signal) };
}

/** The last record per role (run_config.json). */
export async function readServerRecords(layout: Pick<AvtimeOutputRoot, 'serversLog'>): Promise<Partial<Record<ServerRole, ServerRecord>>> {
  const text = await fs.readFile(layout.serversLog, 'utf8').catch(() => '');
  const out: Partial<Record<ServerRole, ServerRecord>> = {};
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const r = serverRecordSchema.safeParse(parseBoundedJson(line));
    if (r.success) out[r.data.role] = r.data;
  }
  return out;
}
