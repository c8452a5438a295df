// What `npm run graph` (scripts/moduleGraph.ts) measures: the cycles of a graph (its strongly connected components
// of more than one node, a self-contained count that does not lean on dependency-cruiser's rule) and the layer of a
// module, bottom up.
import * as assert from 'node:assert/strict';
import { cycles, layerOf } from '../../../scripts/moduleGraph';

const graph = (edges: [string, string][]) => {
  const g = new Map<string, Set<string>>();
  for (const [a, b] of edges) {
    if (!g.has(a)) g.set(a, new Set());
    if (!g.has(b)) g.set(b, new Set());
    g.get(a)!.add(b);
  }
  return g;
};

describe('module graph measures (npm run graph)', () => {
  it('finds each cycle once, a two-file one and a longer one, and none in a chain or a diamond', () => {
    assert.deepEqual(
      cycles(
        graph([
          ['a', 'b'],
          ['b', 'a'],
          ['c', 'd'],
          ['d', 'e'],
          ['e', 'c'],
          ['e', 'f'],
        ]),
      ),
      [
        ['a', 'b'],
        ['c', 'd', 'e'],
      ],
    );
    assert.deepEqual(
      cycles(
        graph([
          ['a', 'b'],
          ['a', 'c'],
          ['b', 'd'],
          ['c', 'd'],
        ]),
      ),
      [],
    );
  });

  it('puts the engine under the run types, under the CLI and worker, under the extension and webview', () => {
    assert.equal(layerOf('src/core/runner/lock.ts'), 0);
    assert.equal(layerOf('src/core/errors.ts'), 0);
    assert.equal(layerOf('src/core/protocols/fp/job.ts'), 1);
    assert.equal(layerOf('src/core/protocols/types.ts'), 1);
    assert.equal(layerOf('src/core/cli/options.ts'), 0);
    assert.equal(layerOf('src/cli/main.ts'), 2);
    assert.equal(layerOf('src/worker/dispatch.ts'), 2);
    assert.equal(layerOf('src/extension/webviewShell.ts'), 3);
    assert.equal(layerOf('media/src/report.ts'), 3);
    assert.equal(layerOf('src/standins/vllm/main.ts'), undefined);
  });
});
