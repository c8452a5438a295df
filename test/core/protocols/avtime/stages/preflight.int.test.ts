// The target pre-flight (SPEC-AVTIME §3): the pure judgement of the counts, and the three wrong servers of
// issue 18 point 7 — a server-wide use_audio_in_video flag, a server that finds no audio track, the loader's
// default 32 frames — each stopped by the pre-flight before any shard, against the launched stand-in.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runAvtime, type AvtimeHooks } from '../../../../../src/core/protocols/avtime/stages/run';
import { AvtimeRunLayout } from '../../../../../src/core/protocols/avtime/stages/layout';
import { judgePreflightCounts, preflightRecordSchema } from '../../../../../src/core/protocols/avtime/stages/preflight';
import { avtimeStatusSchema } from '../../../../../src/core/protocols/avtime/stages/statusSchema';
import { probeMedia } from '../../../../../src/core/serving/models/qwen3Omni/mediaFacts';
import { targetPlan } from '../../../../../src/core/serving/models/qwen3Omni/videoPlan';
import { buildStandin, FAKE_VLLM } from '../../../serving/helpers';
import { freePortRange, withEnv } from '../../fp/sweep/helpers';
import { makeBench } from './benchFixture';
import { tmpDir } from './fixtures';
import { fromArtifacts } from '../../../../../src/core/protocols/avtime/progress';
import { avtimeReport, loadAvtimeRun } from '../../../../../src/core/protocols/avtime/report';
import { avtimeRunRow } from '../../../../../src/extension/protocols/avtime/avtimeTreeRows';

describe('avtime target pre-flight: the counts', () => {
  it('passes equal counts, and names each difference with both counts and what it means', () => {
    assert.equal(judgePreflightCounts({ video: 100, audio: 26 }, { video: 100, audio: 26 }, true), null);
    assert.equal(judgePreflightCounts({ video: 100, audio: 0 }, { video: 100, audio: 0 }, false), null);
    assert.match(
      judgePreflightCounts({ video: 100, audio: 26 }, { video: 100, audio: 0 }, true)!,
      /no audio placeholder token at all \(reference: 26\).*#47788/,
    );
    assert.match(judgePreflightCounts({ video: 100, audio: 26 }, { video: 100, audio: 25 }, true)!, /audio placeholder tokens: server 25, reference 26/);
    const v = judgePreflightCounts({ video: 100, audio: 26 }, { video: 800, audio: 26 }, true, { nframes: 4, modelSize: { height: 64, width: 64 } })!;
    assert.match(v, /video placeholder tokens: server 800, reference 100 \(4 frames of 64x64\).*32 uniform frames/);
    assert.match(judgePreflightCounts({ video: 1, audio: 0 }, { video: 1, audio: 9 }, false)!, /audio in video is off, yet the server fed audio/);
  });
});

describe('avtime target pre-flight: the wrong servers stop the run before any shard', function () {
  this.timeout(240_000);
  const FAST = { FPSWEEP_STANDIN_STARTUP: 'load=0,graph=0', FPSWEEP_STANDIN_LATENCY: 'a=0,b=0' };
  const hooks: AvtimeHooks = { log: () => undefined, clientOptions: { maxRetries: 0 }, startTimeoutMs: 60_000 };
  before(async () => buildStandin());

  async function inferWith(knobs: string) {
    const { root } = makeBench();
    const out = path.join(tmpDir('pre'), 'r1');
    const res = await withEnv({ ...FAST, FPSWEEP_STANDIN_TARGET: knobs }, async () =>
      runAvtime(
        'infer',
        {
          benchRoot: root,
          outputRoot: out,
          runId: 'r1',
          vllmBin: FAKE_VLLM,
          targetModel: 'Qwen/Qwen3-Omni-30B-A3B-Instruct',
          targetGpus: [[0]],
          targetTp: 1,
          targetBasePort: await freePortRange(1),
        },
        hooks,
      ),
    );
    return { res, layout: new AvtimeRunLayout(out, 'r1'), firstVideo: path.join(root, 'media', 'vid_000.mp4') };
  }

  it('the pinned release played right: the counts are the reference’s and the shard runs', async () => {
    const { res, layout, firstVideo } = await inferWith('');
    assert.equal(res.exitCode, 0, res.line);
    const rec = preflightRecordSchema.parse(JSON.parse(fs.readFileSync(layout.preflight, 'utf8')));
    const plan = targetPlan(await probeMedia(firstVideo), true);
    assert.equal(rec.ok, true);
    assert.deepEqual(rec.servers[0].got, plan.predicted);
    assert.ok(plan.predicted.audio > 0 && plan.predicted.video > 0);
    const status = avtimeStatusSchema.parse(JSON.parse(fs.readFileSync(layout.statusFile, 'utf8')));
    assert.equal(status.preflight?.ok, true);
    const view = await fromArtifacts(layout.root);
    const infer = avtimeRunRow({ ...view, scores: null }).children!.find((r) => r.label === 'infer')!;
    assert.match(infer.children![0].description ?? '', new RegExp(`^ok · video ${plan.predicted.video}, audio ${plan.predicted.audio}$`));
  });

  for (const [name, knobs, why] of [
    ['a server-wide --mm-processor-kwargs use_audio_in_video flag (audio never fed, #47788)', 'serverWideAudioFlag=1', /no audio placeholder token at all/],
    ['a server that finds no audio track (HTTP 400)', 'noAudioStream=1', /refused the first input .*HTTP 400.*no audio stream/],
    ["the loader's default 32 frames (no runtime media_io_kwargs)", 'noMediaIoKwargs=1', /video placeholder tokens: server \d+, reference \d+/],
  ] as const) {
    it(`${name}: exit 1 before any shard, both counts kept`, async () => {
      const { res, layout } = await inferWith(knobs);
      assert.equal(res.exitCode, 1, res.line);
      assert.match(res.line, /target pre-flight FAILED before any shard/);
      assert.match(res.line, why);
      assert.equal(fs.existsSync(layout.rawPredictions(0)), false, 'no shard file');
      const rec = preflightRecordSchema.parse(JSON.parse(fs.readFileSync(layout.preflight, 'utf8')));
      assert.equal(rec.ok, false);
      assert.ok(rec.servers[0].predicted && rec.servers[0].predicted.audio > 0);
      const status = avtimeStatusSchema.parse(JSON.parse(fs.readFileSync(layout.statusFile, 'utf8')));
      assert.equal(status.preflight?.ok, false);
      assert.equal(
        status.shards.every((s) => s.written === 0),
        true,
      );
      // The tree (a pre-flight row under infer) and the report (its facts) show it from the artifacts.
      const view = await fromArtifacts(layout.root);
      assert.equal(view.preflight?.ok, false);
      const infer = avtimeRunRow({ ...view, scores: null }).children!.find((r) => r.label === 'infer')!;
      const pre = infer.children!.find((r) => r.label === 'pre-flight')!;
      assert.match(pre.description ?? '', /^FAILED · .* vs reference video \d+, audio \d+/);
      const facts = avtimeReport(await loadAvtimeRun(layout.root)).identity;
      assert.match(facts.find((f) => f.label === 'target pre-flight')!.value, /FAILED/);
      assert.ok(facts.some((f) => f.label.startsWith('pre-flight http://127.0.0.1:') && /reference video \d+, audio \d+/.test(f.value)));
    });
  }
});
