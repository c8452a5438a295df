// Issue 17: on the sample package, played in video-major order (the runner's order), the front-end time the
// stand-in's model accounts is within 1.25× of its floor (each distinct image processed once, every repeat a
// cached hit); the same requests spread round-robin over 4 servers (the seed-like client) are not.
import * as assert from 'node:assert/strict';
import { loadPackage } from '../../../../src/core/protocols/fp/package/load';
import { readResultsCsv } from '../../../../src/core/protocols/fp/package/resultsCsv';
import { buildWorkPlan } from '../../../../src/core/protocols/fp/plan';
import { loadVideoFramePlans } from '../../../../src/core/protocols/fp/plan/framePlans';
import { DEFAULT_CONDITIONS } from '../../../../src/core/protocols/fp/rules/conditions';
import { frontEndFloorS, processInputs, type FrontEndImage } from '../../../../src/standins/vllm/cost/frontEnd';
import { ProcessorCache, DEFAULT_MM_PROCESSOR_CACHE_GB } from '../../../../src/standins/vllm/cost/processorCache';
import { getSamplePackage, SAMPLE_TIMEOUT_MS } from '../../../core/protocols/fp/sample/fixture';

describe("stand-in cost model: the sample package's front end", () => {
  /** Every request of the sample's plan, video by video, units in package order. */
  let requests: FrontEndImage[][];
  before(async function () {
    this.timeout(SAMPLE_TIMEOUT_MS);
    const sample = await getSamplePackage();
    const pkg = await loadPackage(sample.root);
    const plan = await buildWorkPlan(pkg, await readResultsCsv(pkg.layout.resultsCsv), { conditions: DEFAULT_CONDITIONS });
    requests = [];
    for (const video of plan.videos) {
      const fp = await loadVideoFramePlans(pkg.layout, video);
      if (fp.kind !== 'ok') continue;
      for (const unit of video.units) {
        const p = fp.plans.get(unit.condition);
        if (!p || p.width === null || p.height === null) continue;
        const [w, h] = [p.width, p.height];
        // One JPEG per (video, stored frame, size sent): the same frame at the same size is the same image.
        requests.push(p.indices.map((i) => ({ key: `${video.hash}/${i}/${w}x${h}`, width: w, height: h })));
      }
    }
  });

  const accounted = (order: FrontEndImage[][][], gb: number) => {
    let s = 0;
    for (const serverRequests of order) {
      const cache = ProcessorCache.fromGb(gb);
      for (const r of serverRequests) s += processInputs(r, cache).threadS;
    }
    return s;
  };

  it('video-major on one server with the default 4 GiB cache: within 1.25× of the floor', () => {
    const sends = requests.reduce((n, r) => n + r.length, 0);
    const distinct = new Set(requests.flat().map((i) => i.key)).size;
    assert.ok(sends > 2 * distinct, `the sample repeats images (${sends} sends, ${distinct} distinct)`);
    const floor = frontEndFloorS(requests);
    const got = accounted([requests], DEFAULT_MM_PROCESSOR_CACHE_GB);
    console.log(
      `      sample: ${requests.length} requests, ${sends} images sent, ${distinct} distinct; accounted ${got.toFixed(2)} s, floor ${floor.toFixed(2)} s`,
    );
    assert.ok(got >= floor - 1e-9, 'nothing is below the floor');
    assert.ok(got / floor <= 1.25, `accounted/floor = ${(got / floor).toFixed(3)}`);
  });

  it('round-robin over 4 servers processes each image on several servers: above the floor by more', () => {
    const servers: FrontEndImage[][][] = [[], [], [], []];
    requests.forEach((r, i) => servers[i % 4].push(r));
    const floor = frontEndFloorS(requests);
    const videoMajor = accounted([requests], DEFAULT_MM_PROCESSOR_CACHE_GB);
    const roundRobin = accounted(servers, DEFAULT_MM_PROCESSOR_CACHE_GB);
    assert.ok(roundRobin > videoMajor, `${roundRobin} vs ${videoMajor}`);
    assert.ok(roundRobin / floor > 1.25, `round-robin accounted/floor = ${(roundRobin / floor).toFixed(3)}`);
  });
});
