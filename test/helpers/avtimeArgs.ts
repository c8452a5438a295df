/**
 * README's AVTime demo layout, as typed: the target on GPUs 0 and 1 at TP 1 each, the judge on GPU 0. Tests that
 * launch or plan an AVTime run take it from here, so a change of the documented layout is made once.
 */
export const DEMO_GPU_LAYOUT: readonly string[] = ['--target-gpus', '0;1', '--target-tp', '1', '--judge-gpus', '0', '--judge-tp', '1'];
