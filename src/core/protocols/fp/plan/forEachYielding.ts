// Loops over many small synchronous steps (reading ~19,600 meta.json files) without holding the
// event loop for more than `sliceMs` at a time, so status requests and signals are still served.
export async function forEachYielding<T>(items: readonly T[], fn: (item: T, index: number) => void, sliceMs = 20): Promise<void> {
  let sliceStart = performance.now();
  for (let i = 0; i < items.length; i++) {
    fn(items[i], i);
    if (performance.now() - sliceStart > sliceMs) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
}
