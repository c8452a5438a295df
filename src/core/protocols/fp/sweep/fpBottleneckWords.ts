// Frames × Pixels' words in the engine's bottleneck verdicts (runner/bottleneck.ts): what it prepares before a
// request can go (frames, decoded and resized by its decode workers) and its own flags for vLLM's knobs.
import type { BottleneckWords } from '../../../runner/bottleneck';

export const FP_BOTTLENECK_WORDS: BottleneckWords = {
  inputs: 'frames',
  preparation: 'frame preparation',
  prepareKnob: 'more decode workers (--decode-workers) if cores are free; otherwise the host needs more CPU for its GPUs',
  inFlightFlag: '--workers',
  gpuUtilFlag: '--gpu-util',
  maxSeqsFlag: '--max-seqs',
};
