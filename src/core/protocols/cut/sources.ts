// Every source of the input root with its signature now and its recorded state (read-only): the plan's input, the
// dry run's and status's.
import { mapBounded } from '../../runner/mapBounded';
import { FILE_CALLS_AT_ONCE } from '../../runner/stateRead';
import { discoverSources } from './discover';
import type { CutLayout } from './layout';
import { readVideoState, sourceSignature } from './videoState';

/** Every source with its signature and recorded state (read-only): the plan's input, and the dry run's. */
export async function readCutSources(layout: CutLayout, inputRoot: string) {
  const sources = await discoverSources(inputRoot);
  return mapBounded(sources, FILE_CALLS_AT_ONCE, async (source) => {
    const signature = await sourceSignature(source.file);
    if (!signature) throw new Error(`${source.file} vanished while it was read`);
    return { source, signature, state: await readVideoState(layout, source.stem) };
  });
}
