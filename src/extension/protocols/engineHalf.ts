// A run type's engine half as its UI half names it, found by id in the registry (core/protocols/registry.ts) when
// asked: a UI half may land before its engine half, and the extension then shows nothing of it rather than failing.
import { PROTOCOLS } from '../../core/protocols/registry';
import { runRootsOf, type AnyProtocol, type RunRoot } from '../../core/protocols/types';
import type { ProtocolUi } from './types';

export interface EngineHalf {
  /** The registered engine half, or undefined while it is not in this build. */
  engine: () => AnyProtocol | undefined;
  /** The run type as the UI names it: its title (`title` until registered), its layout (Stop asks it only of a live root). */
  protocol: ProtocolUi['protocol'];
}

export function engineHalf(id: string, title: string): EngineHalf {
  const engine = () => PROTOCOLS.get(id);
  return {
    engine,
    protocol: {
      id,
      get title(): string {
        return engine()?.title ?? title;
      },
      runRoot(root: string): RunRoot {
        const p = engine();
        if (!p) throw new Error(`the ${id} run type is not in this build`);
        return p.runRoot(root);
      },
      // Every rank's engine state (a sharded run): Stop asks each.
      runRoots(root: string): Promise<RunRoot[]> {
        const p = engine();
        if (!p) throw new Error(`the ${id} run type is not in this build`);
        return runRootsOf(p, root);
      },
    },
  };
}
