// The launchers' topology checks (SPEC-AVTIME-DATA §7, seed §6 "GRPO topology is rejected"), each failure with
// its numbers: world size divisible by TP·PP·CP; EP divides the data-parallel size; global batch divisible
// by the generations (GRPO).
import type { Topology } from './defaults';

export function topologyProblems(t: Topology): string[] {
  const problems: string[] = [];
  const world = t.NNODES * t.NPROC_PER_NODE;
  const model = t.TP * t.PP * t.CP;
  if (world % model !== 0) {
    problems.push(
      `world size NNODES·NPROC_PER_NODE = ${t.NNODES}·${t.NPROC_PER_NODE} = ${world} is not divisible by TP·PP·CP = ${t.TP}·${t.PP}·${t.CP} = ${model}`,
    );
  } else {
    const dp = world / model;
    if (dp % t.EP !== 0) problems.push(`EP = ${t.EP} does not divide the data-parallel size ${world}/${model} = ${dp}`);
  }
  if (t.NUM_GENERATIONS !== undefined && t.GLOBAL_BATCH_SIZE % t.NUM_GENERATIONS !== 0)
    problems.push(`GLOBAL_BATCH_SIZE = ${t.GLOBAL_BATCH_SIZE} is not divisible by NUM_GENERATIONS = ${t.NUM_GENERATIONS}`);
  return problems;
}
