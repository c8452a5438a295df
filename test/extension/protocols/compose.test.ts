// Issue 24 point 3: a run type's UI added in one place (the list given to ComposedUi, as PROTOCOL_UIS is) shows
// its tree group, registers its commands, answers its report panels and Stop finds its live runs; its webview
// renderer is found by report kind. A fake run type ("tally") proves it without vscode.
import { strict as assert } from 'node:assert';
import { defaultRunRoot } from '../../../src/core/runner/runRoot';
import { ComposedUi, runningKey, ANY_RUNNING_KEY } from '../../../src/extension/protocols/compose';
import type { ProtocolUi, ProtocolView, UiHost } from '../../../src/extension/protocols/types';
import type { ProtocolReportSource } from '../../../src/extension/reports/reportPanel';
import type { TreeRow } from '../../../src/extension/progressNodes';
import { rendererFor, type Renderers } from '../../../media/src/protocols/renderers';

const host = {} as UiHost;

function tallyUi(live: string[], rows: TreeRow[], extra: Partial<ProtocolView> = {}, id = 'tally'): ProtocolUi & { activated: number } {
  const ui = {
    activated: 0,
    protocol: { id, title: 'Tally', runRoot: (root: string) => defaultRunRoot(root) },
    activate(): ProtocolView {
      ui.activated++;
      return {
        section: () => ({ protocol: { id, title: 'Tally' }, runs: rows.length, rows }),
        onDidChange: () => ({ dispose() {} }),
        liveRoots: () => live,
        refresh: async () => undefined,
        commands: [{ id: 'fpsweep.tally.start', run: () => 'started' }],
        reportSources: { tally: { report: async () => ({ count: 3 }) } as unknown as ProtocolReportSource },
        dispose() {},
        ...extra,
      };
    },
  };
  return ui;
}

const row = (id: string): TreeRow => ({ id, label: id, icon: 'running', collapsible: 'none', children: [] });

describe('the UI registry composed (a fake run type added in one place)', () => {
  it('shows its tree group with its rows, after the run types before it', () => {
    const composed = new ComposedUi([tallyUi([], [], { commands: [], reportSources: {} }, 'other'), tallyUi([], [row('tally:/w/t1')])], host);
    const roots = composed.treeRows();
    // A run type with nothing to show has no group.
    assert.deepEqual(
      roots.map((r) => [r.id, r.description, r.children.map((c) => c.id)]),
      [['group:tally', '1 run', ['tally:/w/t1']]],
    );
  });

  it('registers its commands, and refuses a command id two run types claim', async () => {
    const composed = new ComposedUi([tallyUi([], [])], host);
    const cmds = composed.commands();
    assert.deepEqual(
      cmds.map((c) => c.id),
      ['fpsweep.tally.start'],
    );
    assert.equal(cmds[0].run(), 'started');
    const clash = new ComposedUi([tallyUi([], []), tallyUi([], [], {}, 'twin')], host);
    assert.throws(() => clash.commands(), /command fpsweep\.tally\.start is registered by two run types/);
    assert.throws(() => new ComposedUi([tallyUi([], []), tallyUi([], [])], host), /two UIs for run type 'tally'/);
  });

  it('answers its report panels through its source, and its renderer is found by kind', async () => {
    const sources = new ComposedUi([tallyUi([], [])], host).reportSources();
    assert.deepEqual(await sources.tally.report(undefined), { count: 3 });
    const renderers: Renderers = { tally: ((m: { count: number }) => `count ${m.count}`) as never };
    assert.equal(
      rendererFor(renderers, 'tally')({ count: 3 }, undefined, () => undefined),
      'count 3',
    );
    assert.throws(() => rendererFor(renderers, 'nope'), /no renderer for the nope report/);
  });

  it('Stop finds its live runs by their run root, and its context key says whether one runs', () => {
    const idle = new ComposedUi([tallyUi([], [])], host);
    assert.deepEqual(idle.liveRuns(), []);
    assert.deepEqual(idle.contextKeys(), [
      [runningKey('tally'), false],
      [ANY_RUNNING_KEY, false],
    ]);
    const busy = new ComposedUi([tallyUi(['/w/t1'], [])], host);
    const [run] = busy.liveRuns();
    assert.equal(run.root, '/w/t1');
    assert.equal(run.ui.protocol.runRoot(run.root).lockFile, defaultRunRoot('/w/t1').lockFile);
    assert.deepEqual(busy.contextKeys(), [
      ['fpsweep.running.tally', true],
      [ANY_RUNNING_KEY, true],
    ]);
  });

  it('its runbook steps and the view description come from it too', () => {
    const steps = { verbs: ['tally'], cells: () => [], run: async () => true };
    const composed = new ComposedUi([tallyUi([], [], { runbook: steps, viewDescription: () => '40%' })], host);
    assert.deepEqual(composed.runbookSteps(), [steps]);
    assert.equal(composed.viewDescription(), '40%');
  });

  it("offers its starts to the one Start and its report to the one Report, and a run row's root finds its run type", async () => {
    const started: (string | undefined)[] = [];
    const reported: (string | undefined)[] = [];
    const withRoot = { ...row('tally:/w/t1'), root: '/w/t1', children: [{ ...row('tally:/w/t1:a'), root: '/w/t1/a' }] };
    const tally = tallyUi([], [withRoot], {
      starts: [{ label: 'Run', run: (root) => started.push(root) }],
      openReport: (root) => reported.push(root),
    });
    const other = tallyUi([], [row('other:x')], { commands: [], reportSources: {} }, 'other');
    const composed = new ComposedUi([other, tally], host);
    assert.deepEqual(
      composed.starts().map((s) => [s.ui.protocol.id, s.start.label]),
      [['tally', 'Run']],
    );
    await composed.starts()[0].start.run('/w/t1');
    assert.deepEqual(started, ['/w/t1']);
    assert.deepEqual(
      composed.reporters().map((r) => r.ui.protocol.id),
      ['tally'],
    );
    assert.equal(composed.ownerOf('/w/t1')?.ui, tally);
    assert.equal(composed.ownerOf('/w/t1/a')?.ui, tally, 'a row under a run row');
    assert.equal(composed.ownerOf('/w/none'), undefined);
    // One folder shown by two run types (a cut's output root is a caption videos root): the row's id decides.
    const shared = { ...row('other:/w/t1'), root: '/w/t1' };
    const both = new ComposedUi([tallyUi([], [shared], { commands: [], reportSources: {} }, 'other'), tally], host);
    assert.equal(both.ownerOf(withRoot)?.ui, tally);
    assert.equal(both.ownerOf(shared)?.ui.protocol.id, 'other');
    assert.equal(both.ownerOf({ id: 'gone', root: '/w/t1' })?.ui.protocol.id, 'other', 'an unknown row: by its root');
    await composed.ownerOf('/w/t1')!.view.openReport!('/w/t1');
    assert.deepEqual(reported, ['/w/t1']);
  });

  it('a root made outside the run types (a runbook step) is followed by each run type that follows roots', async () => {
    const followed: string[] = [];
    const follows = tallyUi([], [], { follow: async (root) => void followed.push(root) });
    const composed = new ComposedUi([tallyUi([], [], { commands: [], reportSources: {} }, 'other'), follows], host);
    await composed.follow('/w/out');
    assert.deepEqual(followed, ['/w/out']);
  });
});
