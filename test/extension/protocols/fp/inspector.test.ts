// The item inspector's host side, without VS Code: the requests that open it (a flip, a failure row) in their exact
// shape, a flip opening its contrast's two conditions, and only files of the package's frame stores becoming URIs.
import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ItemInspection } from '../../../../src/core/protocols/fp/inspect/types';
import { CliFindingsSource } from '../../../../src/extension/protocols/fp/findingsSource';
import { checkedFrameFiles, frameStoreRoots, inspectorState, restoredInspectTarget } from '../../../../src/extension/protocols/fp/inspectorSource';
import { checkWebviewRequest } from '../../../../src/extension/reports/requests';

describe('item inspector: host side', () => {
  it('takes inspectItem (a failure row) and inspectFlip (a flip) only in their exact shapes', () => {
    const ask = (command: string, args: unknown) => checkWebviewRequest({ req: 5, command, args });
    assert.ok(ask('inspectItem', { benchmark: 'MVBench', itemId: 'MVBench_0001', condition: 'v_32' }).ok);
    assert.ok(ask('inspectItem', { benchmark: 'MVBench', itemId: 'MVBench_0001' }).ok);
    assert.ok(ask('inspectFlip', { benchmark: 'MVBench', itemId: 'MVBench_0001', contrast: 'temporal' }).ok);
    const bad: [string, unknown, RegExp][] = [
      ['inspectItem', { benchmark: 'MVBench' }, /itemId/],
      ['inspectItem', { benchmark: 'MVBench', itemId: '', condition: 'v_32' }, /itemId/],
      ['inspectItem', { benchmark: 'MVBench', itemId: 'x', file: '/etc/passwd' }, /Unrecognized key/],
      ['inspectFlip', { benchmark: 'MVBench', itemId: 'x', contrast: 'v_32' }, /contrast/],
      ['inspectFlip', { benchmark: 'MVBench', itemId: 'x', contrast: 'pixels', conditions: ['v_1'] }, /Unrecognized key/],
    ];
    for (const [command, args, why] of bad) {
      const r = ask(command, args);
      assert.ok(!r.ok, JSON.stringify(args));
      assert.match(r.error, why);
    }
  });

  it('opens a flip with its contrast’s two conditions first, as the findings define them', async () => {
    const asked: unknown[] = [];
    const source = new CliFindingsSource({
      distDir: '/nowhere',
      env: () => ({}),
      fp: { packageDir: () => '/pkg', onDidChange: () => ({ dispose() {} }) },
      inspect: async (t) => void asked.push(t),
    });
    assert.equal(await source.requests.inspectFlip({ benchmark: 'MVBench', itemId: 'MVBench_0007', contrast: 'pixels' }, undefined), true);
    assert.equal(await source.requests.inspectFlip({ benchmark: 'MVBench', itemId: 'MVBench_0007', contrast: 'temporal' }, undefined), true);
    assert.deepEqual(asked, [
      { benchmark: 'MVBench', itemId: 'MVBench_0007', conditions: ['v_32_s448', 'v_32_s168'] },
      { benchmark: 'MVBench', itemId: 'MVBench_0007', conditions: ['v_32', 'v_1'] },
    ]);
  });

  it('turns only files inside the package’s two frame stores into frames to show (a link out is refused)', async () => {
    const top = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'fpsweep-inspector-')));
    try {
      const pkg = path.join(top, 'pkg');
      await fs.mkdir(pkg);
      const roots = await frameStoreRoots(pkg);
      assert.deepEqual(roots, [path.join(pkg, '.fpsweep', 'frames'), path.join(pkg, '.fpsweep', 'inspect-frames')]);
      const [run, mine] = roots;
      await fs.mkdir(path.join(run, 'h'), { recursive: true });
      await fs.mkdir(path.join(mine, 'h'), { recursive: true });
      await fs.writeFile(path.join(run, 'h', 'a.jpg'), 'a');
      await fs.writeFile(path.join(mine, 'h', 'b.jpg'), 'b');
      await fs.writeFile(path.join(top, 'secret.jpg'), 's');
      await fs.symlink(path.join(top, 'secret.jpg'), path.join(mine, 'h', 'link.jpg'));
      const frame = (index: number, file: string | null) => ({ index, timestamp: null, file, source: 'run' as const });
      const model = {
        conditions: [
          {
            condition: 'v_8_s224',
            frames: [
              frame(0, path.join(run, 'h', 'a.jpg')),
              frame(1, path.join(mine, 'h', 'b.jpg')),
              frame(2, path.join(mine, 'h', 'link.jpg')),
              frame(3, path.join(top, 'secret.jpg')),
              frame(4, `${run}/h/../../../secret.jpg`),
              frame(5, null),
            ],
            problems: [] as string[],
          },
        ],
      } as unknown as ItemInspection;
      const files = await checkedFrameFiles(model, roots);
      assert.deepEqual(files, [[path.join(run, 'h', 'a.jpg'), path.join(mine, 'h', 'b.jpg'), null, null, null, null]]);
      assert.equal(model.conditions[0].problems.length, 3, model.conditions[0].problems.join('\n'));
    } finally {
      await fs.rm(top, { recursive: true, force: true });
    }
  });

  it('keeps {benchmark, itemId, conditions} across a window reload and shows that item again in the package followed', () => {
    const target = { packageDir: '/pkg', benchmark: 'MVBench', itemId: 'MVBench_0007', conditions: ['v_32', 'v_1'] };
    // VS Code keeps the webview's state as JSON and hands it to the serializer.
    const kept: unknown = JSON.parse(JSON.stringify(inspectorState(target)));
    assert.deepEqual(kept, { benchmark: 'MVBench', itemId: 'MVBench_0007', conditions: ['v_32', 'v_1'] });
    assert.deepEqual(restoredInspectTarget(kept, '/pkg'), target);
    assert.deepEqual(restoredInspectTarget(kept, '/other'), { ...target, packageDir: '/other' }, 'the package followed now');
    const refused: [unknown, string | undefined, RegExp][] = [
      [kept, undefined, /no run package/],
      [undefined, '/pkg', /not an item inspector state/],
      [{ benchmark: 'MVBench', conditions: [] }, '/pkg', /not an item inspector state/],
      [{ benchmark: 'MVBench', itemId: '', conditions: [] }, '/pkg', /not an item inspector state/],
      [{ benchmark: 'MVBench', itemId: 'x', conditions: 'v_1' }, '/pkg', /not an item inspector state/],
      [{ benchmark: 'MVBench', itemId: 'x', conditions: [], packageDir: '/etc' }, '/pkg', /not an item inspector state/],
    ];
    for (const [state, pkg, why] of refused) {
      const r = restoredInspectTarget(state, pkg);
      assert.ok('refused' in r, JSON.stringify(state));
      assert.match(r.refused, why);
    }
  });
});
