// The fully expanded Megatron-SWIFT launch per node rank (SPEC-AVTIME-DATA §7) as data: the environment the
// `megatron` launcher reads for torchrun (NNODES, NODE_RANK, MASTER_ADDR, MASTER_PORT, NPROC_PER_NODE) and the
// argv. Pure: the same knobs give the same lines.
import { MODEL_KNOB, type Topology, type TrainKind } from './defaults';

export interface NodeLaunch {
  node_rank: number;
  env: Record<string, string>;
  argv: string[];
}

export function expandLaunch(kind: TrainKind, t: Topology, recipe: Record<string, string>, model: string): NodeLaunch[] {
  const r = (k: string) => recipe[k];
  const common = [
    ['--model', model],
    ['--dataset', r('DATASET')],
    ['--save', r('OUTPUT_DIR')],
    ['--train_type', 'lora'],
    ['--tensor_model_parallel_size', t.TP],
    ['--pipeline_model_parallel_size', t.PP],
    ['--context_parallel_size', t.CP],
    ['--expert_model_parallel_size', t.EP],
    ['--expert_tensor_parallel_size', t.ETP],
    ['--global_batch_size', t.GLOBAL_BATCH_SIZE],
    ['--micro_batch_size', t.MICRO_BATCH_SIZE],
    ['--max_length', r('MAX_LENGTH')],
    ['--lora_rank', r('LORA_RANK')],
    ['--lora_alpha', r('LORA_ALPHA')],
    ['--lora_dropout', r('LORA_DROPOUT')],
    ['--freeze_vit', 'true'],
    ['--freeze_aligner', 'true'],
    ['--lr', r('LR')],
    ['--min_lr', r('MIN_LR')],
  ];
  const own =
    kind === 'sft'
      ? [
          ['--max_epochs', r('EPOCHS')],
          ['--split_dataset_ratio', r('SPLIT_DATASET_RATIO')],
          ['--save_interval', r('SAVE_INTERVAL')],
          ['--eval_interval', r('EVAL_INTERVAL')],
        ]
      : [
          ['--rlhf_type', 'grpo'],
          ['--reward_funcs', r('REWARD_FUNCS')],
          ['--num_generations', t.NUM_GENERATIONS!],
          ['--train_iters', r('TRAIN_ITERS')],
          ['--max_completion_length', r('MAX_COMPLETION_LENGTH')],
          ['--temperature', r('TEMPERATURE')],
          ['--top_p', r('TOP_P')],
          ['--top_k', r('TOP_K')],
          ['--use_vllm', 'true'],
          ['--vllm_mode', 'server'],
          ['--vllm_server_host', r('ROLLOUT_HOST')],
          ['--vllm_server_port', r('ROLLOUT_PORT')],
        ];
  const entry = r(kind === 'sft' ? 'MEGATRON_SFT_ENTRYPOINT' : 'MEGATRON_RLHF_ENTRYPOINT')
    .split(/\s+/)
    .filter(Boolean);
  const argv = [...entry, ...[...common, ...own].flatMap(([k, v]) => [String(k), String(v)])];
  const env: Record<string, string> = {
    NNODES: String(t.NNODES),
    NPROC_PER_NODE: String(t.NPROC_PER_NODE),
    MASTER_ADDR: r('MASTER_ADDR'),
    MASTER_PORT: r('MASTER_PORT'),
  };
  if (kind === 'grpo') Object.assign(env, { BTSC_REWARD_BASE_URL: `http://${r('REWARD_HOST')}:${r('REWARD_PORT')}/v1` });
  return Array.from({ length: t.NNODES }, (_, rank) => ({ node_rank: rank, env: { ...env, NODE_RANK: String(rank) }, argv }));
}

export { MODEL_KNOB };

/** One shell line: `K=V … argv`, each word quoted only when it needs to be. */
export function shellLine(l: NodeLaunch): string {
  const q = (s: string) => (/^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  return [...Object.entries(l.env).map(([k, v]) => `${k}=${q(v)}`), ...l.argv.map(q)].join(' ');
}
