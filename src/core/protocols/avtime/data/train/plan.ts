// `fpsweep avtime train sft|grpo --dry-run` (SPEC-AVTIME-DATA §7): the knobs from flags, else the seed's
// environment names, else the seed's defaults; the checks (the dataset exists, the topology); the launches.
import { promises as fs } from 'node:fs';
import { InputError, UsageError } from '../../../../errors';
import { MODEL_KNOB, RECIPE_DEFAULTS, TOPOLOGY_DEFAULTS, type Topology, type TrainKind } from './defaults';
import { expandLaunch, type NodeLaunch } from './expand';
import { topologyProblems } from './topology';

export interface TrainPlan {
  kind: TrainKind;
  topology: Topology;
  recipe: Record<string, string>;
  model: string;
  launches: NodeLaunch[];
}

/** `knobs`: values given as flags, by the seed's environment name (TP, DATASET, …); they win over `env`. */
export async function planTrain(kind: TrainKind, knobs: Record<string, string | undefined>, env: NodeJS.ProcessEnv): Promise<TrainPlan> {
  const given = (k: string) => knobs[k] ?? (env[k] !== undefined && env[k] !== '' ? env[k] : undefined);
  const topology = { ...TOPOLOGY_DEFAULTS[kind] };
  for (const k of Object.keys(topology) as (keyof Topology)[]) {
    const raw = given(k);
    if (raw === undefined) continue;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`${k} must be a whole number ≥ 1, got '${raw}'`);
    topology[k] = n;
  }
  const recipe = Object.fromEntries(Object.entries(RECIPE_DEFAULTS[kind]).map(([k, v]) => [k, given(k) ?? v]));
  const model = given(MODEL_KNOB[kind]);
  if (model === undefined) throw new UsageError(`${MODEL_KNOB[kind]} (--model) is required: the checkpoint to train`);
  const st = await fs.stat(recipe.DATASET).catch(() => null);
  // Named as typed: the flag, then the seed's environment name (issue 41); a folder is not a missing file.
  if (!st?.isFile())
    throw new InputError(
      `--dataset (or DATASET) ${recipe.DATASET}: ${st ? 'a folder, not a file' : 'no such file'}; build it first (fpsweep avtime build-${kind})`,
    );
  const problems = topologyProblems(topology);
  if (problems.length) throw new InputError(`${kind} topology refused:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  return { kind, topology, recipe, model, launches: expandLaunch(kind, topology, recipe, model) };
}
