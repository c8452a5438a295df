// A launched role's GPU groups against its tensor-parallel size: each group is one server, holding exactly TP
// GPUs. Checked before the output root exists (a refusal at server start would leave a root behind that a
// corrected run may not enter) and again where the servers start.
import { UsageError } from '../../../errors';

export function checkTopology(role: 'target' | 'judge', groups: readonly (readonly number[])[], tp: number): void {
  const bad = groups.find((g) => g.length !== tp);
  if (bad) throw new UsageError(`--${role}-gpus group ${bad.join(',')} has ${bad.length} GPU(s) but --${role}-tp is ${tp}: a group holds exactly TP GPUs`);
}
