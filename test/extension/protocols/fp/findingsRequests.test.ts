import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { findingsSchema } from '../../../../src/core/protocols/fp/findings/types';
import { checkWebviewRequest } from '../../../../src/extension/reports/requests';
import { buildFindingsView, flipsOf } from '../../../../src/core/protocols/fp/findings/charts/buildView';
import { findingsViewSchema } from '../../../../src/core/protocols/fp/findings/charts/viewModel';
import { FINDINGS_FIXTURE } from '../../../core/protocols/fp/findings/fixture';

describe('findings panel boundaries', () => {
  const stdout = readFileSync(FINDINGS_FIXTURE, 'utf8');

  it('takes the flips request only in its exact shape', () => {
    const flips = (args: unknown) => checkWebviewRequest({ req: 3, command: 'findingsFlips', args });
    assert.deepEqual(flips({ benchmark: 'MVBench', contrast: 'frames' }), {
      ok: true,
      request: { req: 3, command: 'findingsFlips', args: { benchmark: 'MVBench', contrast: 'frames' } },
    });
    const bad: [unknown, RegExp][] = [
      [undefined, /^findingsFlips: Required/],
      [{ benchmark: 'MVBench' }, /contrast/],
      [{ benchmark: 'MVBench', contrast: 'pixels; rm -rf' }, /contrast/],
      [{ benchmark: '', contrast: 'pixels' }, /benchmark/],
      [{ benchmark: 7, contrast: 'pixels' }, /benchmark/],
      [{ benchmark: 'x'.repeat(513), contrast: 'pixels' }, /benchmark/],
      [{ benchmark: 'MVBench', contrast: 'pixels', file: '/etc/passwd' }, /Unrecognized key/],
    ];
    for (const [args, why] of bad) {
      const r = flips(args);
      assert.ok(!r.ok, JSON.stringify(args));
      assert.equal(r.req, 3);
      assert.match(r.error, why, JSON.stringify(args));
    }
  });

  it('sends the view without the flips and serves them one benchmark × contrast at a time', () => {
    const f = findingsSchema.parse(JSON.parse(stdout));
    const view = buildFindingsView(f, {}, '/pkg', '2026-12-03T21:00:00Z');
    assert.ok(findingsViewSchema.safeParse(view).success);
    assert.ok(view.findings.benchmarks.every((b) => b.flips === undefined));
    assert.ok(f.benchmarks[0].flips!.length > 0, 'the source findings keep their flips');
    const mv = flipsOf(f, 'MVBench', 'pixels');
    assert.deepEqual(
      mv.map((x) => x.item_id),
      f.benchmarks[0].flips!.filter((x) => x.contrast === 'pixels').map((x) => x.item_id),
    );
    assert.ok(mv.every((x) => x.contrast === 'pixels'));
    assert.deepEqual(flipsOf(f, 'NoSuchBench', 'pixels'), []);
  });
});
