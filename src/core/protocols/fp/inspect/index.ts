// The item inspector's model (issue 36 point 1): `fpsweep inspect`, the extension's inspector panel and its tests.
export { inspectItem, conditionOrder, readItem, type InspectOptions } from './inspectItem';
export { readInspection, type MakeFrames } from './itemModel';
export { listItems } from './listItems';
export { inspectFrameStoreDir, INSPECT_STORE_CAP_BYTES } from './inspectFrames';
export * from './types';
