// Plan time and memory on a full-size metadata-only package (84 × 300 items, ~19,600 videos).
//   npx tsx bench/plan.ts [--keep DIR] [--runs N (default 3)]
// Measures, in a fresh child process each: the baseline (read + JSON.parse every meta.json, nothing
// else), the cold plan (loadPackage + results CSV done-set + buildWorkPlan over the 13 default
// conditions, every meta.json read) and the warm plan (the same with the meta summary cache a run
// leaves in .fpsweep/). Prints wall and CPU times, ratios and peak RSS. Targets: < 5 s, < 300 MB.
import { execFileSync } from 'node:child_process';
import { promises as fs, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildBenchPackage } from './planPackage';
import { bundleSelf } from './bundleSelf';

const CHILD = '--child';

async function child(mode: string, root: string): Promise<void> {
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let detail: Record<string, number> = {};
  if (mode === 'baseline') {
    // The floor: read and JSON.parse every meta.json the way the plan does (synchronously), nothing else.
    const { PackageLayout } = await import('../src/core/protocols/fp/package/layout');
    const layout = new PackageLayout(root);
    const names = await fs.readdir(layout.storeDir);
    let frames = 0;
    for (const name of names) frames += JSON.parse(readFileSync(layout.metaFile(name), 'utf8')).timestamps.length;
    detail = { videos: names.length, frames };
  } else {
    const { loadPackage } = await import('../src/core/protocols/fp/package/load');
    const { readResultsCsv } = await import('../src/core/protocols/fp/package/resultsCsv');
    const { buildWorkPlan } = await import('../src/core/protocols/fp/plan/buildWorkPlan');
    const { DEFAULT_CONDITIONS } = await import('../src/core/protocols/fp/rules/conditions');
    const cpuNow = () => {
      const u = process.cpuUsage(cpu0);
      return (u.user + u.system) / 1e6;
    };
    const pkg = await loadPackage(root);
    const tLoad = performance.now();
    const cLoad = cpuNow();
    const csv = await readResultsCsv(pkg.layout.resultsCsv);
    const tCsv = performance.now();
    const cCsv = cpuNow();
    // plan: cold (no meta cache, every meta.json read); plan-warm: with the cache a run leaves
    const plan = await buildWorkPlan(pkg, csv, { conditions: DEFAULT_CONDITIONS, metaCache: mode === 'plan-warm' ? 'read' : 'off' });
    let refusals = 0;
    for (const byCond of plan.counts.values()) for (const c of byCond.values()) refusals += c.context_refusals;
    detail = {
      load_s: (tLoad - t0) / 1000,
      csv_s: (tCsv - tLoad) / 1000,
      build_s: (performance.now() - tCsv) / 1000,
      load_cpu: cLoad,
      csv_cpu: cCsv - cLoad,
      build_cpu: cpuNow() - cCsv,
      items: [...pkg.items.values()].reduce((n, l) => n + l.length, 0),
      csv_rows: csv.done.size,
      units: plan.units.length,
      todo: plan.units.filter((u) => u.status === 'todo').length,
      videos: plan.videos.length,
      refusals,
      problems: pkg.problems.length + csv.problems.length,
    };
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const maxRssMb = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(JSON.stringify({ mode, seconds, cpuSeconds, maxRssMb, ...detail }) + '\n');
}

/** The child runs this file bundled by esbuild as the CLI is (dist/cli.js), so it measures what ships. */
function bundle(dir: string): Promise<string> {
  return bundleSelf(__filename, dir, 'plan-bench.js');
}

function measure(script: string, mode: string, root: string): Record<string, number> {
  const out = execFileSync(process.execPath, [script, CHILD, mode, root], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!);
}

async function main(): Promise<void> {
  const keepAt = process.argv.indexOf('--keep');
  const root = keepAt >= 0 ? path.resolve(process.argv[keepAt + 1]) : await fs.mkdtemp(path.join(os.tmpdir(), 'fpsweep-bench-plan-'));
  try {
    const marker = path.join(root, '.bench-complete');
    const have = await fs.access(marker).then(
      () => true,
      () => false,
    );
    if (!have) {
      const t = performance.now();
      const made = await buildBenchPackage(root);
      await fs.writeFile(marker, '');
      console.log(`built ${made.items} items, ${made.videos} videos, ${made.csvRows} CSV rows in ${((performance.now() - t) / 1000).toFixed(1)} s at ${root}`);
    } else console.log(`reusing ${root}`);
    const script = await bundle(await fs.mkdtemp(path.join(os.tmpdir(), 'fpsweep-bench-js-')));
    // Alternate baseline and plan runs; keep each one's fastest (a shared machine only adds noise).
    const runsAt = process.argv.indexOf('--runs');
    const runs = runsAt >= 0 ? Math.max(1, Number(process.argv[runsAt + 1]) || 1) : 3;
    // The warm plan reads .fpsweep/plan-meta-cache.json as a run leaves it (made here, untimed).
    const { loadPackage } = await import('../src/core/protocols/fp/package/load');
    const { readResultsCsv } = await import('../src/core/protocols/fp/package/resultsCsv');
    const { buildWorkPlan } = await import('../src/core/protocols/fp/plan/buildWorkPlan');
    const { DEFAULT_CONDITIONS } = await import('../src/core/protocols/fp/rules/conditions');
    const pkg = await loadPackage(root);
    await buildWorkPlan(pkg, await readResultsCsv(pkg.layout.resultsCsv), { conditions: DEFAULT_CONDITIONS, metaCache: 'update' });
    let base: Record<string, number> | null = null;
    let plan: Record<string, number> | null = null;
    let warm: Record<string, number> | null = null;
    for (let i = 0; i < runs; i++) {
      const b = measure(script, 'baseline', root);
      const p = measure(script, 'plan', root);
      const w = measure(script, 'plan-warm', root);
      if (!base || b.cpuSeconds < base.cpuSeconds) base = b;
      if (!plan || p.cpuSeconds < plan.cpuSeconds) plan = p;
      if (!warm || w.cpuSeconds < warm.cpuSeconds) warm = w;
      console.log(
        `  run ${i + 1}: baseline ${b.seconds.toFixed(2)} s (CPU ${b.cpuSeconds.toFixed(2)}), plan ${p.seconds.toFixed(2)} s ` +
          `(CPU ${p.cpuSeconds.toFixed(2)}, RSS ${p.maxRssMb.toFixed(0)} MB), ` +
          `warm ${w.seconds.toFixed(2)} s (CPU ${w.cpuSeconds.toFixed(2)}, RSS ${w.maxRssMb.toFixed(0)} MB)`,
      );
    }
    if (!base || !plan || !warm) return;
    console.log(`fastest of ${runs} (by CPU):`);
    await fs.rm(path.dirname(script), { recursive: true, force: true });
    console.log(
      `baseline (read + JSON.parse ${base.videos} meta.json): ${base.seconds.toFixed(2)} s ` +
        `(CPU ${base.cpuSeconds.toFixed(2)} s), peak RSS ${base.maxRssMb.toFixed(0)} MB`,
    );
    console.log(
      `plan (load ${plan.load_s.toFixed(2)} s + CSV ${plan.csv_s.toFixed(2)} s + build ${plan.build_s.toFixed(2)} s; ` +
        `CPU ${plan.load_cpu.toFixed(2)} + ${plan.csv_cpu.toFixed(2)} + ${plan.build_cpu.toFixed(2)} s): ` +
        `${plan.seconds.toFixed(2)} s = ${(plan.seconds / base.seconds).toFixed(2)}× baseline (CPU ${plan.cpuSeconds.toFixed(2)} s = ` +
        `${(plan.cpuSeconds / base.cpuSeconds).toFixed(2)}×), peak RSS ${plan.maxRssMb.toFixed(0)} MB`,
    );
    console.log(
      `  ${plan.items} items, ${plan.csv_rows} done rows, ${plan.units} units (${plan.todo} todo on ${plan.videos} videos), ` +
        `${plan.refusals} predicted context refusals, ${plan.problems} problems`,
    );
    // Wall time on a shared, loaded machine overstates; the CPU time is what the plan itself costs.
    console.log(`machine load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores`);
    console.log(
      `warm plan (meta cache; load ${warm.load_s.toFixed(2)} s + CSV ${warm.csv_s.toFixed(2)} s + build ${warm.build_s.toFixed(2)} s; ` +
        `CPU ${warm.load_cpu.toFixed(2)} + ${warm.csv_cpu.toFixed(2)} + ${warm.build_cpu.toFixed(2)} s): ${warm.seconds.toFixed(2)} s ` +
        `(CPU ${warm.cpuSeconds.toFixed(2)} s = ${(warm.cpuSeconds / base.cpuSeconds).toFixed(2)}× baseline), ` +
        `peak RSS ${warm.maxRssMb.toFixed(0)} MB, same units: ${warm.units === plan.units && warm.todo === plan.todo && warm.refusals === plan.refusals}`,
    );
    const verdict = (label: string, s: number) => `${label} ${s.toFixed(2)} s ${s < 5 ? '<' : '>='} 5 s`;
    for (const [name, r] of [
      ['cold', plan],
      ['warm', warm],
    ] as const) {
      console.log(
        `target (${name}): ${verdict('wall', r.seconds)}, ${verdict('CPU', r.cpuSeconds)}, ` +
          `peak RSS ${r.maxRssMb.toFixed(0)} MB ${r.maxRssMb < 300 ? '<' : '>='} 300 MB`,
      );
    }
  } finally {
    if (keepAt < 0) await fs.rm(root, { recursive: true, force: true });
  }
}

if (process.argv[2] === CHILD) {
  child(process.argv[3], process.argv[4]).catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
