// Our cutter (`--cutter builtin`) as a Cutter: filled in when builtin/ lands.
import type { Cutter } from './cutter';

export function builtinCutter(_configText: string | null, _where: string): Cutter {
  throw new Error('the builtin cutter is not in this build yet');
}
