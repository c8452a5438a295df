// `--package DIR` of `fpsweep status` / `stop`: which run type's root DIR is, asked of the registry (each
// protocol's findRoots), so a new run type needs no edit here. One folder can be the root of two run types (a cut's
// output root is the videos root captioning reads): `resolveRunRoots` gives every one, `--run-type ID` picks one.
import * as path from 'node:path';
import { UsageError } from '../core/errors';
import type { AnyProtocol, ProtocolRegistry } from '../core/protocols/types';

const names = (ps: AnyProtocol[]) => ps.map((p) => `${p.id} (${p.title})`).join(', ');

/** The run type whose root DIR is; with two, `runType` (--run-type) must say which. */
export async function resolveRunRoot(registry: ProtocolRegistry, dir: string, runType?: string): Promise<{ protocol: AnyProtocol; root: string }> {
  const all = await resolveRunRoots(registry, dir, runType);
  if (all.length === 1) return all[0];
  throw new UsageError(`${all[0].root} is a run root of more than one run type: ${names(all.map((r) => r.protocol))}; say which with --run-type ID`);
}

/** Every run type whose root DIR is (at least one), or only `runType`'s when given. */
export async function resolveRunRoots(registry: ProtocolRegistry, dir: string, runType?: string): Promise<{ protocol: AnyProtocol; root: string }[]> {
  const root = path.resolve(dir);
  const found = await registry.recognising(root);
  if (runType !== undefined) {
    const p = found.find((x) => x.id === runType);
    if (p) return [{ protocol: p, root }];
    throw new UsageError(
      `--run-type ${runType}: ${root} is ${found.length ? `a run root of ${names(found)} only` : 'not a run root of it'} ` +
        `(run types: ${registry.ids.join(', ')})`,
    );
  }
  if (found.length >= 1) return found.map((protocol) => ({ protocol, root }));
  const under = (await Promise.all(registry.all.map(async (p) => (await p.findRoots(root)).map((r) => `${r} (${p.id})`)))).flat();
  throw new UsageError(
    `${root} is not a run root of any run type (${names(registry.all)})` +
      (under.length ? `; runs under it: ${under.slice(0, 10).join(', ')}${under.length > 10 ? ', …' : ''}` : '') +
      `: give --package a run package or an AVTime output root`,
  );
}
