// eval/<RUN_ID>/run_config.json — the run's identity (seed "Run identity"; SPEC-AVTIME §7): run id, commit,
// versions, models and revisions, prompt and schema hashes, decoding, topology, input and output hashes,
// the non-default options and environment, and whether the run is canonical. Written last: it hashes
// every other artifact of the output root.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { gitCommit, packageVersion } from '../../../runner/identity';
import { checkGpus } from '../../../doctor/gpus';
import { JUDGE_MAX_TOKENS, JUDGE_TEMPERATURE, PROTOCOL_NAME, TARGET_DECODING } from '../constants';
import { JUDGE_KINDS, JUDGE_SCHEMAS, type JudgeKind } from '../judge/schemas';
import type { JudgeTemplate } from '../judge/template';
import type { AvtimeRunLayout } from './layout';
import { nonDefaultOptions, type AvtimeOptions } from './options';
import type { ServerRecord } from './servers';
import { sha256File } from './files';
import { TARGET_MAX_MODEL_LEN } from './targetRequest';
import { describePin } from '../../../serving/vllmVersion';
import { AVTIME_JUDGE_VLLM_PIN, AVTIME_TARGET_VLLM_PIN, JUDGE_REASONING_PARSER } from '../vllmPins';
import { JUDGE_MAX_MODEL_LEN } from '../judge/context';
import { chatTemplateKwargs, judgeMode } from '../judge/mode';
import { TARGET_PREPROCESSING } from '../reference/parity';
import { readPreflight } from './preflight';

/** Environment knobs a run reads; their values are recorded when set (never a key or a token). */
export const RECORDED_ENV = [
  'TARGET_MODEL',
  'TARGET_MODEL_ID',
  'JUDGE_MODEL',
  'JUDGE_MODEL_ID',
  'RUN_ID',
  'VLLM_BIN',
  'TARGET_VLLM_BIN',
  'JUDGE_VLLM_BIN',
  'CUDA_VISIBLE_DEVICES',
  'HF_HUB_OFFLINE',
] as const;

export async function hashTree(root: string, skip: (rel: string) => boolean): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string) => {
    for (const e of (await fs.readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(dir, e.name);
      const rel = path.relative(root, p);
      if (skip(rel)) continue;
      if (e.isDirectory()) await walk(p);
      else if (e.isFile()) out[rel] = await sha256File(p);
    }
  };
  await walk(root);
  return out;
}

export interface RunConfigInput {
  layout: AvtimeRunLayout;
  options: AvtimeOptions;
  canonical: boolean;
  startedAt: string;
  inputFiles: Record<string, string>;
  targetModelId: string;
  judgeModelId: string;
  servers: Partial<Record<'target' | 'judge', ServerRecord>>;
  targetPromptSha256: string;
  templates: Readonly<Record<JudgeKind, JudgeTemplate>>;
  shards: number;
}

export async function buildRunConfig(c: RunConfigInput): Promise<Record<string, unknown>> {
  const inputs: Record<string, { path: string; sha256: string | null }> = {};
  for (const [name, file] of Object.entries(c.inputFiles)) inputs[name] = { path: file, sha256: await sha256File(file).catch(() => null) };
  const runConfigRel = path.relative(c.layout.root, c.layout.runConfig);
  const stateRel = path.relative(c.layout.root, c.layout.stateDir);
  const outputs = await hashTree(c.layout.root, (rel) => rel === stateRel || rel === runConfigRel);
  const t = c.servers.target;
  const j = c.servers.judge;
  // The seed's "GPU model and count": what nvidia-smi lists here ([] without it, e.g. with --endpoints elsewhere).
  const gpus = (await checkGpus(process.env)).gpus;
  const env: Record<string, string> = {};
  for (const k of RECORDED_ENV) if (process.env[k] !== undefined) env[k] = process.env[k]!;
  return {
    run_id: c.layout.runId,
    protocol: PROTOCOL_NAME,
    canonical: c.canonical,
    started_at: c.startedAt,
    finished_at: new Date().toISOString(),
    commit: gitCommit(),
    // What each server reported (GET /version), and the pin it was held to.
    versions: { node: process.version, fpsweep: packageVersion(), vllm_target: t?.vllm_version ?? null, vllm_judge: j?.vllm_version ?? null },
    vllm_pins: { target: describePin(AVTIME_TARGET_VLLM_PIN), judge: describePin(AVTIME_JUDGE_VLLM_PIN) },
    models: {
      target: {
        model: c.options.targetModel ?? t?.model ?? null,
        model_id: c.targetModelId,
        revision: c.options.targetRevision ?? null,
        served_model: t?.served_model ?? null,
      },
      judge: {
        model: c.options.judgeModel ?? j?.model ?? null,
        model_id: c.judgeModelId,
        revision: c.options.judgeRevision ?? null,
        served_model: j?.served_model ?? null,
      },
    },
    prompts: {
      target: { sha256: c.targetPromptSha256 },
      judge: Object.fromEntries(JUDGE_KINDS.map((k) => [k, { prompt_version: c.templates[k].prompt_version, prompt_sha256: c.templates[k].prompt_sha256 }])),
      schemas: Object.fromEntries(
        JUDGE_KINDS.map((k) => [k, { schema_version: JUDGE_SCHEMAS[k].schema_version, schema_sha256: JUDGE_SCHEMAS[k].schema_sha256 }]),
      ),
    },
    decoding: {
      target: { ...TARGET_DECODING, mm_processor_kwargs: { use_audio_in_video: c.options.audioInVideo } },
      judge: {
        temperature: JUDGE_TEMPERATURE,
        max_tokens: { pass1: JUDGE_MAX_TOKENS[1], retry: JUDGE_MAX_TOKENS[2] },
        mode: judgeMode(c.options.judgeThinking),
        chat_template_kwargs: chatTemplateKwargs(judgeMode(c.options.judgeThinking)),
      },
    },
    topology: {
      host_gpus: { count: gpus.length, models: gpus.map((g) => `${g.name}, ${g.memoryMiB} MiB`) },
      target: {
        shards: c.shards,
        gpu_groups: t?.gpu_groups ?? [],
        tensor_parallel_size: t?.tensor_parallel_size ?? null,
        max_model_len: TARGET_MAX_MODEL_LEN,
        endpoints: t?.endpoints ?? [],
        launch_lines: t?.launch_lines ?? [],
        batch_per_server: c.options.targetBatch,
        base_port: c.options.targetBasePort,
      },
      judge: {
        gpu_groups: j?.gpu_groups ?? [],
        tensor_parallel_size: j?.tensor_parallel_size ?? null,
        max_model_len: JUDGE_MAX_MODEL_LEN,
        reasoning_parser: JUDGE_REASONING_PARSER,
        endpoints: j?.endpoints ?? [],
        launch_lines: j?.launch_lines ?? [],
        batch: { pass1: c.options.judgeBatch, retry: c.options.judgeRetryBatch },
        base_port: c.options.judgeBasePort,
      },
    },
    // SPEC-AVTIME §3: what the target's preprocessing shares with the reference's, and the pre-flight's counts.
    target_preprocessing: { ...TARGET_PREPROCESSING, preflight: await readPreflight(c.layout) },
    target_resume: !c.canonical,
    target_continue_on_error: !c.canonical,
    inputs,
    outputs,
    non_default_options: nonDefaultOptions(c.options),
    environment: env,
  };
}
