// `inspectItem`: one item's model (itemModel.ts) with the frames the run no longer has made again by the frame
// pipeline (rebuildFrames.ts), as `fpsweep inspect` prints it. The extension host reads the model alone
// (readInspection without a maker) and leaves the making to the CLI.
import type { ItemInspection } from './types';
import { readInspection, type InspectOptions } from './itemModel';
import { rebuildFrames } from './rebuildFrames';

export { conditionOrder, readItem, type InspectOptions } from './itemModel';

export function inspectItem(root: string, opts: InspectOptions): Promise<ItemInspection> {
  return readInspection(root, opts, rebuildFrames);
}
