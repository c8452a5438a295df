// The findings' statistics against an outside reference: Debian's scipy and statsmodels (/usr/bin/python3),
// on seeded random tables. Agreement to 1e-9 (points are compared as proportions).
import { strict as assert } from 'node:assert';
import { close, pythonReference } from './pythonReference';
import { SeededRandom } from '../../../../../src/core/seededRandom';
import {
  benjaminiHochberg,
  clusteredMean,
  mcnemarExactP,
  minimumDetectableEffect,
  wilson,
  Z80,
  Z95,
  Z975,
} from '../../../../../src/core/protocols/fp/findings/stats';

interface ClusterCase {
  d: number[];
  groups: string[];
}

function randomCases(seed: number) {
  const r = new SeededRandom(seed);
  const wilsonCases: [number, number][] = [
    [0, 1],
    [1, 1],
    [0, 300],
    [300, 300],
  ];
  for (let i = 0; i < 60; i++) {
    const n = 1 + r.int(400);
    wilsonCases.push([r.int(n + 1), n]);
  }
  const mcnemarCases: [number, number][] = [
    [0, 0],
    [0, 1],
    [7, 7],
    [0, 300],
    [600, 540],
    [1500, 1400],
  ];
  for (let i = 0; i < 60; i++) mcnemarCases.push([r.int(120), r.int(120)]);
  const bhCases: number[][] = [];
  for (let i = 0; i < 12; i++) {
    const m = 1 + r.int(170);
    bhCases.push(Array.from({ length: m }, () => (r.next() < 0.3 ? r.next() * 1e-3 : r.next())));
  }
  bhCases.push([0.01, 0.01, 0.01, 1, 1]); // ties
  const clusterCases: ClusterCase[] = [];
  for (let i = 0; i < 25; i++) {
    const n = 2 + r.int(300);
    const nClusters = 1 + r.int(Math.max(1, Math.floor(n / (1 + r.int(10)))));
    const pb = r.next() * 0.5;
    const pc = r.next() * 0.5;
    const d: number[] = [];
    const groups: string[] = [];
    for (let j = 0; j < n; j++) {
      const u = r.next();
      d.push(u < pb ? 1 : u < pb + pc ? -1 : 0);
      groups.push(`v${r.int(nClusters)}`);
    }
    if (d.every((x) => x === d[0])) d[0] = d[0] === 1 ? 0 : 1; // statsmodels needs a non-constant residual
    clusterCases.push({ d, groups });
  }
  return { wilson: wilsonCases, mcnemar: mcnemarCases, bh: bhCases, clustered: clusterCases };
}

describe('findings statistics vs scipy/statsmodels (/usr/bin/python3)', function () {
  this.timeout(120_000);
  for (const seed of [1, 19]) {
    it(`agree to 1e-9 on seeded random tables (seed ${seed})`, function () {
      const cases = randomCases(seed);
      const ref = pythonReference(['cases'], cases);
      close(Z975, ref.z[0], 'z 0.975');
      close(Z95, ref.z[1], 'z 0.95');
      close(Z80, ref.z[2], 'z 0.80');
      cases.wilson.forEach(([k, n], i) => {
        const w = wilson(k, n);
        close(w.lo, ref.wilson[i][0], `wilson lo ${k}/${n}`);
        close(w.hi, ref.wilson[i][1], `wilson hi ${k}/${n}`);
      });
      cases.mcnemar.forEach(([b, c], i) => close(mcnemarExactP(b, c), ref.mcnemar[i], `mcnemar p b=${b} c=${c}`));
      cases.bh.forEach((ps, i) => benjaminiHochberg(ps).forEach((q, j) => close(q, ref.bh[i][j], `bh case ${i} #${j}`)));
      cases.clustered.forEach((c, i) => {
        const m = clusteredMean(c.d, c.groups);
        const want = ref.clustered[i];
        close(m.mean, want.mean, `cluster ${i} mean`);
        close(m.se, want.se, `cluster ${i} se`);
        close(m.mean - Z975 * m.se, want.lo, `cluster ${i} 95 % lo`);
        close(m.mean + Z975 * m.se, want.hi, `cluster ${i} 95 % hi`);
        close(m.mean - Z95 * m.se, want.lo90, `cluster ${i} 90 % lo`);
        close(minimumDetectableEffect(m.se), want.mde, `cluster ${i} mde`);
      });
    });
  }

  it('a wrong formula is caught: the SE without clusters differs from the reference', function () {
    // Guard that the comparison can fail: one item per cluster vs all items in one video.
    const d = [1, 1, 0, -1, 1, 0, 0, 1];
    const ref = pythonReference(['cases'], { wilson: [], mcnemar: [], bh: [], clustered: [{ d, groups: d.map((_, i) => `v${i % 2}`) }] });
    const unclustered = clusteredMean(
      d,
      d.map((_, i) => `v${i}`),
    );
    assert.ok(Math.abs(unclustered.se - ref.clustered[0].se) > 1e-3);
    close(
      clusteredMean(
        d,
        d.map((_, i) => `v${i % 2}`),
      ).se,
      ref.clustered[0].se,
      'two clusters',
    );
  });
});
