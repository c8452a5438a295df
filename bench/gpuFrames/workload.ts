// The GPU-frames device bench's workload (issue 34): for each video class of the sample (1280×720 and 854×480
// H.264, 1024 stored frames at 30 fps), every distinct (stored frame, width, height) JPEG that the default
// condition list sends, from planFrames (the one source of frame choice and sizes). Written as JSON for
// bench/gpuFrames/device_bench.py, which cannot run TypeScript.
//   npx tsx bench/gpuFrames/workload.ts OUT.json
import { writeFileSync } from 'node:fs';
import { DEFAULT_CONDITIONS, parseCondition, planFrames } from '../../src/core/protocols/fp/rules';

export const VIDEO_CLASSES = [
  { name: 'v720', width: 1280, height: 720 },
  { name: 'v480', width: 854, height: 480 },
] as const;
export const STORED_FRAMES = 1024;
export const FPS = 30;

export function classWorkload(width: number, height: number) {
  const timestamps = Array.from({ length: STORED_FRAMES }, (_, k) => k / FPS);
  const meta = { width, height, timestamps, too_short: false };
  const seen = new Set<string>();
  const jpegs: [number, number, number][] = [];
  for (const name of DEFAULT_CONDITIONS) {
    const plan = planFrames(parseCondition(name), meta);
    if (plan.status !== 'send' || plan.width === null || plan.height === null) continue;
    for (const i of plan.indices) {
      const key = `${i}:${plan.width}x${plan.height}`;
      if (!seen.has(key)) {
        seen.add(key);
        jpegs.push([i, plan.width, plan.height]);
      }
    }
  }
  jpegs.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return jpegs;
}

if (require.main === module) {
  const out = process.argv[2];
  if (!out) throw new Error('usage: workload.ts OUT.json');
  const classes = VIDEO_CLASSES.map((c) => ({ ...c, frames: STORED_FRAMES, fps: FPS, jpegs: classWorkload(c.width, c.height) }));
  writeFileSync(out, JSON.stringify({ classes }));
  for (const c of classes) console.log(`${c.name}: ${c.jpegs.length} distinct JPEGs, sizes ${[...new Set(c.jpegs.map((j) => `${j[1]}x${j[2]}`))].join(' ')}`);
}
