// "Failed before", one rule: as properties. The view rule keeps every count and never moves more than
// is to do; and over random plans and failure logs, the live worker's cells (CellBook), the dry run
// (countsFromPlan) and the two progress views built from them agree on it.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { isFailedBefore, showFailedBefore } from '../../../../../src/core/protocols/fp/package/failedBefore';
import { unitKey } from '../../../../../src/core/protocols/fp/package/unitKey';
import { CellBook } from '../../../../../src/core/protocols/fp/sweep/cells';
import { countsFromPlan } from '../../../../../src/core/protocols/fp/dryrun/dryRun';
import { emptyCounts, type UnitCounts, type WorkPlan, type WorkUnit } from '../../../../../src/core/protocols/fp/plan';
import type { WorkerStatus } from '../../../../../src/core/protocols/fp/status/statusSchema';
import { fromDryRun, fromWorkerStatus } from '../../../../../src/core/protocols/fp/progress';
import type { DryRunJson } from '../../../../../src/core/protocols/fp/dryrun/jsonSchema';

const CONDS = ['v_blind', 'v_32', 'v_32_480'];

describe('package: the failed-before rule', () => {
  it('a view moves failed-before units from todo to failed, never more than todo, keeping the sum', () => {
    fc.assert(
      fc.property(fc.nat(1000), fc.nat(1000), fc.integer({ min: -5, max: 2000 }), (todo, failed, failedBefore) => {
        const v = showFailedBefore({ todo, failed, failedBefore });
        assert.equal(v.todo + v.failed, todo + failed);
        assert.ok(v.todo >= 0 && v.failed >= failed);
        assert.equal(v.failed - failed, Math.max(0, Math.min(failedBefore, todo)));
      }),
    );
  });

  it('only units still to write count: done, NA and failed-to-plan units never do', () => {
    const u = (status: string) => ({ benchmark: 'b', item: { item_id: 'i' }, condition: 'v_32', status });
    const keys = new Set([unitKey('b', 'i', 'v_32')]);
    assert.deepEqual(
      ['todo', 'reuse', 'NA', 'no_video', 'bad_meta', 'done'].map((s) => isFailedBefore(u(s), keys)),
      [true, true, false, false, false, false],
    );
    assert.equal(isFailedBefore(u('todo'), new Set()), false);
  });

  it('the worker cells, the dry run and both progress views agree on random plans and failure logs', () => {
    const unitArb = fc.record({
      item: fc.integer({ min: 0, max: 30 }),
      cond: fc.constantFrom(...CONDS),
      status: fc.constantFrom('todo', 'reuse', 'NA'),
      failed: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(unitArb, { maxLength: 60 }), fc.nat(5), (raw, doneExtra) => {
        const seen = new Set<string>();
        const units: WorkUnit[] = [];
        const failedKeys = new Set<string>(['b\u0000nope\u0000v_32']);
        for (const r of raw) {
          const k = unitKey('b', `i${r.item}`, r.cond);
          if (seen.has(k)) continue;
          seen.add(k);
          units.push({
            benchmark: 'b',
            item: { item_id: `i${r.item}` } as WorkUnit['item'],
            condition: r.cond,
            status: r.status as WorkUnit['status'],
            hash: 'h',
          });
          if (r.failed) failedKeys.add(k);
        }
        const counts = new Map<string, UnitCounts>(CONDS.map((c) => [c, { ...emptyCounts(), done: doneExtra }]));
        for (const u of units) counts.get(u.condition)![u.status as 'todo' | 'reuse' | 'NA']++;
        const plan = { layout: null, benchmarks: ['b'], conditions: CONDS, units, videos: [], counts: new Map([['b', counts]]) } as unknown as WorkPlan;
        const total = Math.max(doneExtra, 0) + 31;
        const cells = new CellBook(plan, new Map([['b', total]]), 0, failedKeys).progress();
        const dry = countsFromPlan(plan, failedKeys);
        assert.deepEqual(
          cells.map((c) => [c.condition, c.failedBefore]),
          dry.rows.filter((r) => cells.some((c) => c.condition === r.condition)).map((r) => [r.condition, r.failed_before]),
        );
        const status = { cells, servers: [], etaSeconds: null, state: 'running', stopReason: null } as unknown as WorkerStatus;
        const live = fromWorkerStatus(status, false).benchmarks.flatMap((b) => b.cells);
        const art = fromDryRun({ rows: dry.rows, totals: dry.totals } as unknown as DryRunJson).benchmarks.flatMap((b) => b.cells);
        for (const c of live) {
          const a = art.find((x) => x.condition === c.condition)!;
          assert.deepEqual([c.todo, c.failed, c.done], [a.todo, a.failed, a.done], c.condition);
        }
      }),
    );
  });
});
