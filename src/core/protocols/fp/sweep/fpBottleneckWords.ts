// Frames × Pixels' words in the engine's bottleneck verdicts (runner/bottleneck.ts): what it prepares before a
// request can go (frames, decoded and resized by its decode workers) and its own flags for vLLM's knobs.
import type { BottleneckWords } from '../../../runner/bottleneck';

export const FP_BOTTLENECK_WORDS: BottleneckWords = {
  inputs: 'frames',
  preparation: 'frame preparation',
  // Issue 34: where the cores are full, frames on the GPU (NVDEC + GPU resize) take ~90 % of their CPU off the host (doctor/gpuFrames.ts).
  prepareKnob:
    'more decode workers (--decode-workers) if cores are free; if the cores are full, frames on the GPU (--frames-on gpu, ' +
    'where `fpsweep doctor` finds NVDEC and a CUDA torch) or more CPU for the GPUs',
  inFlightFlag: '--workers',
  gpuUtilFlag: '--gpu-util',
  maxSeqsFlag: '--max-seqs',
};
