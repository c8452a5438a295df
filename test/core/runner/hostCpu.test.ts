// The host's cores as a bound (runner/hostCpu.ts): no makespan below Σ CPU / cores, the same rule on a measured
// window, and both agree on what "bound" means.
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { CPU_BOUND_SHARE, cpuFloorS, honestMakespan, hostCpuBound, hostCpuShare, totalCpuS } from '../../../src/core/runner/hostCpu';

describe('runner/hostCpu', () => {
  it("the issue's figures: 89.8 CPU-hours on 16 cores floor (c) at 5.61 h, above its simulated 4.20 h", () => {
    const h = 3600;
    const cpu = { frames: 44.75 * h, api: 18.8 * h, media: 14.2 * h, engine: 12.1 * h };
    assert.ok(Math.abs(totalCpuS(cpu) / h - 89.85) < 1e-9);
    const m = honestMakespan(4.2 * h, cpu, 16);
    assert.ok(Math.abs(m.floorS / h - 5.615) < 1e-3);
    assert.equal(m.honestS, m.floorS);
    assert.equal(m.cpuBound, true);
    assert.ok(m.load > 1.3 && m.load < 1.35);
    // On 32 cores the same CPU fits under the simulated makespan: the simulation stands.
    const m32 = honestMakespan(4.2 * h, cpu, 32);
    assert.equal(m32.honestS, 4.2 * h);
    assert.equal(m32.cpuBound, false);
  });

  it('never below the simulated makespan nor the CPU floor, for any CPU split and core count', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1e6, noNaN: true }),
        fc.array(fc.double({ min: 0, max: 1e6, noNaN: true }), { minLength: 4, maxLength: 4 }),
        fc.integer({ min: 1, max: 256 }),
        (sim, [frames, api, media, engine], cores) => {
          const m = honestMakespan(sim, { frames, api, media, engine }, cores);
          assert.ok(m.honestS >= sim);
          assert.ok(m.honestS >= (frames + api + media + engine) / cores - 1e-6);
          assert.equal(m.cpuBound, m.floorS > sim);
        },
      ),
    );
  });

  it('negative or missing parts count as nothing; no cores is an error', () => {
    assert.equal(totalCpuS({ frames: 10, api: -5 }), 10);
    assert.throws(() => cpuFloorS({ frames: 1 }, 0), /cores must be > 0/);
  });

  it('a measured window is CPU-bound from CPU_BOUND_SHARE of its core-seconds, the floor rule turned round', () => {
    assert.equal(hostCpuBound({ busyCoreS: 16 * 100 * CPU_BOUND_SHARE, cores: 16, wallS: 100 }), true);
    assert.equal(hostCpuBound({ busyCoreS: 16 * 100 * CPU_BOUND_SHARE - 1, cores: 16, wallS: 100 }), false);
    assert.equal(hostCpuShare({ busyCoreS: 10, cores: 16, wallS: 0 }), null);
    assert.equal(hostCpuShare({ busyCoreS: 5000, cores: 16, wallS: 100 }), 1);
    // A run whose CPU floor equals its wall is a window with every core busy: bound by both rules.
    const cpu = { frames: 1000, api: 600 };
    const m = honestMakespan(50, cpu, 16);
    assert.equal(hostCpuBound({ busyCoreS: totalCpuS(cpu), cores: 16, wallS: m.honestS }), true);
  });
});
