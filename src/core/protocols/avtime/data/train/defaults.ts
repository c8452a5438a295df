// The training launchers' public defaults (seed §4 "Launch SFT", §6 "Public GRPO defaults"); every value can be
// overridden by the seed's environment name or the matching flag.

export type TrainKind = 'sft' | 'grpo';

/** The knobs the topology checks read (SPEC-AVTIME-DATA §7). */
export interface Topology {
  NNODES: number;
  NPROC_PER_NODE: number;
  TP: number;
  PP: number;
  CP: number;
  EP: number;
  ETP: number;
  GLOBAL_BATCH_SIZE: number;
  MICRO_BATCH_SIZE: number;
  /** GRPO only. */
  NUM_GENERATIONS?: number;
}

export const TOPOLOGY_DEFAULTS: Record<TrainKind, Topology> = {
  sft: { NNODES: 4, NPROC_PER_NODE: 8, TP: 2, PP: 1, CP: 2, EP: 8, ETP: 1, GLOBAL_BATCH_SIZE: 64, MICRO_BATCH_SIZE: 1 },
  grpo: { NNODES: 2, NPROC_PER_NODE: 8, TP: 2, PP: 2, CP: 2, EP: 2, ETP: 1, GLOBAL_BATCH_SIZE: 128, MICRO_BATCH_SIZE: 1, NUM_GENERATIONS: 8 },
};

/** Everything else the expansion names, as strings: the seed's values for the recipe (seed §4, §6 tables). */
export const RECIPE_DEFAULTS: Record<TrainKind, Record<string, string>> = {
  sft: {
    DATASET: 'outputs/training/sft_train.jsonl',
    OUTPUT_DIR: 'outputs/training/sft-checkpoints',
    MASTER_ADDR: '127.0.0.1',
    MASTER_PORT: '29500',
    EPOCHS: '1',
    MAX_LENGTH: '65536',
    LORA_RANK: '128',
    LORA_ALPHA: '256',
    LORA_DROPOUT: '0.05',
    LR: '5e-5',
    MIN_LR: '5e-6',
    SPLIT_DATASET_RATIO: '0.002',
    SAVE_INTERVAL: '20',
    EVAL_INTERVAL: '20',
    MEGATRON_SFT_ENTRYPOINT: 'megatron sft',
  },
  grpo: {
    DATASET: 'outputs/training/bitsc_grpo.jsonl',
    OUTPUT_DIR: 'outputs/training/bitsc-grpo-checkpoints',
    MASTER_ADDR: '127.0.0.1',
    MASTER_PORT: '29500',
    ROLLOUT_HOST: '127.0.0.1',
    ROLLOUT_PORT: '8100',
    REWARD_HOST: '127.0.0.1',
    REWARD_PORT: '8000',
    TRAIN_ITERS: '100',
    MAX_LENGTH: '32768',
    MAX_COMPLETION_LENGTH: '2048',
    TEMPERATURE: '0.9',
    TOP_P: '0.95',
    TOP_K: '50',
    LORA_RANK: '64',
    LORA_ALPHA: '128',
    LORA_DROPOUT: '0.05',
    LR: '2e-6',
    MIN_LR: '2e-7',
    REWARD_FUNCS: 'avtime_btsc',
    MEGATRON_RLHF_ENTRYPOINT: 'megatron rlhf',
  },
};

/** The model knob's name: the SFT launcher takes MODEL, the GRPO launcher ACTOR_MODEL (seed §4, §6). */
export const MODEL_KNOB: Record<TrainKind, 'MODEL' | 'ACTOR_MODEL'> = { sft: 'MODEL', grpo: 'ACTOR_MODEL' };
