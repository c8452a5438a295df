// `fpsweep avtime train sft|grpo --dry-run`: flags → the knobs of planTrain (SPEC-AVTIME-DATA §7).
import { UsageError } from '../../../../errors';
import { parseVerbArgs, type FlagSpec, type OptionSpec } from '../../../../cli/options';
import type { TrainKind } from '../train/defaults';
import { shellLine } from '../train/expand';
import { planTrain } from '../train/plan';

export const summary = 'the expanded Megatron-SWIFT launch per node rank, after the dataset and topology checks';

const HELP = `usage: fpsweep avtime train sft|grpo --dry-run [--model M] [--dataset FILE] [--output-dir DIR]
         [--nnodes N] [--nproc-per-node N] [--tp N] [--pp N] [--cp N] [--ep N] [--etp N]
         [--global-batch-size N] [--micro-batch-size N] [--num-generations N] [--master-addr H] [--json]

Every knob also reads the seed's environment name (MODEL for sft, ACTOR_MODEL for grpo, DATASET, OUTPUT_DIR,
NNODES, NPROC_PER_NODE, TP, PP, CP, EP, ETP, GLOBAL_BATCH_SIZE, MICRO_BATCH_SIZE, NUM_GENERATIONS, MASTER_ADDR,
MASTER_PORT, ROLLOUT_HOST, ROLLOUT_PORT, REWARD_HOST, REWARD_PORT, MEGATRON_SFT_ENTRYPOINT, MEGATRON_RLHF_ENTRYPOINT);
a flag wins. Defaults: sft 4×8, TP/PP/CP/EP/ETP 2/1/2/8/1, batch 64/1; grpo 2×8, 2/2/2/2/1, batch 128/1, 8 generations.
Checks: DATASET exists; NNODES·NPROC_PER_NODE divisible by TP·PP·CP; EP divides the data-parallel size;
GLOBAL_BATCH_SIZE divisible by NUM_GENERATIONS (grpo). Prints one line per node rank (--json: the plan).
Exit: 0 printed, 2 a check failed (its numbers named) or bad usage. Launching for real is not built yet.

Rerun: reads only: prints the same plan again and writes nothing (--dry-run).`;

/** flag name → the seed's knob. */
const KNOB_FLAGS: Record<string, string> = {
  model: '',
  dataset: 'DATASET',
  'output-dir': 'OUTPUT_DIR',
  nnodes: 'NNODES',
  'nproc-per-node': 'NPROC_PER_NODE',
  tp: 'TP',
  pp: 'PP',
  cp: 'CP',
  ep: 'EP',
  etp: 'ETP',
  'global-batch-size': 'GLOBAL_BATCH_SIZE',
  'micro-batch-size': 'MICRO_BATCH_SIZE',
  'num-generations': 'NUM_GENERATIONS',
  'master-addr': 'MASTER_ADDR',
};

/** A knob's flag: the sizes are whole numbers ≥ 1 (planTrain checks how they fit together), the dataset a file. */
function knobFlag(f: string): FlagSpec {
  if (f === 'dataset') return { type: 'string', meta: 'FILE', value: { kind: 'path', is: 'any' } }; // its existence: planTrain's check
  if (f === 'model' || f === 'output-dir' || f === 'master-addr') return { type: 'string' };
  return { type: 'string', meta: 'N', value: { kind: 'int', min: 1, max: 1_000_000 } };
}

export const flags: OptionSpec = {
  'dry-run': { type: 'boolean' },
  json: { type: 'boolean' },
  ...Object.fromEntries(Object.keys(KNOB_FLAGS).map((f) => [f, knobFlag(f)])),
};

export async function run(args: string[]): Promise<number> {
  const [kind, ...rest] = args;
  if (kind !== 'sft' && kind !== 'grpo') throw new UsageError(`train needs sft or grpo, got '${kind ?? ''}'\n\n${HELP}`);
  const v = parseVerbArgs(rest, flags, HELP);
  if (v['dry-run'] !== true) throw new UsageError(`only --dry-run is built: launching for real is not yet\n\n${HELP}`);
  if (kind === 'sft' && v['num-generations'] !== undefined) throw new UsageError('--num-generations goes with train grpo');
  const knobs: Record<string, string | undefined> = {};
  for (const [f, k] of Object.entries(KNOB_FLAGS)) if (v[f] !== undefined) knobs[k || (kind === 'sft' ? 'MODEL' : 'ACTOR_MODEL')] = String(v[f]);
  const plan = await planTrain(kind as TrainKind, knobs, process.env);
  if (v.json === true) {
    process.stdout.write(JSON.stringify(plan, null, 2) + '\n');
    return 0;
  }
  const t = plan.topology;
  const world = t.NNODES * t.NPROC_PER_NODE;
  process.stdout.write(
    `# ${kind} dry run: world ${world} = ${t.NNODES}×${t.NPROC_PER_NODE}, TP·PP·CP ${t.TP * t.PP * t.CP}, DP ${world / (t.TP * t.PP * t.CP)}, EP ${t.EP}` +
      (t.NUM_GENERATIONS !== undefined ? `, global batch ${t.GLOBAL_BATCH_SIZE} / ${t.NUM_GENERATIONS} generations` : '') +
      `; defaults from the seed${Object.keys(knobs).length ? ', overrides: ' + Object.keys(knobs).join(' ') : ''}\n` +
      plan.launches.map((l) => `# node rank ${l.node_rank}\n${shellLine(l)}\n`).join(''),
  );
  return 0;
}
