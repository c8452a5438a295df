// `--package DIR` of `fpsweep status` / `stop`: which run type's root DIR is, asked of the registry (each
// protocol's findRoots), so a new run type needs no edit here. Exactly one must recognise it.
import * as path from 'node:path';
import { UsageError } from '../core/errors';
import type { AnyProtocol, ProtocolRegistry } from '../core/protocols/types';

export async function resolveRunRoot(registry: ProtocolRegistry, dir: string): Promise<{ protocol: AnyProtocol; root: string }> {
  const root = path.resolve(dir);
  const found = await registry.recognising(root);
  if (found.length === 1) return { protocol: found[0], root };
  const names = (ps: AnyProtocol[]) => ps.map((p) => `${p.id} (${p.title})`).join(', ');
  if (found.length > 1) throw new UsageError(`${root} is a run root of more than one run type: ${names(found)}; give the folder of one run`);
  const under = (await Promise.all(registry.all.map(async (p) => (await p.findRoots(root)).map((r) => `${r} (${p.id})`)))).flat();
  throw new UsageError(
    `${root} is not a run root of any run type (${names(registry.all)})` +
      (under.length ? `; runs under it: ${under.slice(0, 10).join(', ')}${under.length > 10 ? ', …' : ''}` : '') +
      `: give --package a run package or an AVTime output root`,
  );
}
