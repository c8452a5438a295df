// The sample plan alone (no ffmpeg): deterministic, scales linearly, keeps its one-off cases single.
import * as assert from 'node:assert/strict';
import { describeSample, planSample, plannedTimestamp } from '../../../../../src/core/protocols/fp/sample/plan';
import { isPlainName } from '../../../../../src/core/package/names';
import { itemSchema, manifestRowSchema } from '../../../../../src/core/protocols/fp/package/schemas';

describe('sample plan', () => {
  it('is the same on every call (fixed seed)', () => {
    assert.deepEqual(planSample(1), planSample(1));
    assert.deepEqual(planSample(3), planSample(3));
  });

  it('scales videos, items and existing rows; the one-off cases stay single', () => {
    const one = planSample(1);
    const three = planSample(3);
    const missing = (p: typeof one) => p.items.filter((i) => i.missing).length;
    const special = missing(one);
    assert.equal(three.videos.length, 3 * one.videos.length);
    assert.equal(three.items.length - missing(three), 3 * (one.items.length - special));
    assert.equal(missing(three), special);
    assert.equal(three.items.filter((i) => i.question.includes('onerror=')).length, 1);
    assert.ok(three.existing.length > 2 * one.existing.length);
    assert.throws(() => planSample(0), RangeError);
    assert.throws(() => planSample(1.5), RangeError);
  });

  it('gives unique, plain ids, hashes and video tags, and valid items and manifest rows', () => {
    const plan = planSample(2);
    assert.equal(new Set(plan.videos.map((v) => v.hash)).size, plan.videos.length);
    assert.deepEqual(
      plan.videos.map((v) => v.tag),
      plan.videos.map((_, i) => i),
    );
    assert.equal(new Set(plan.items.map((i) => `${i.benchmark}/${i.item_id}`)).size, plan.items.length);
    for (const it of plan.items) itemSchema.parse(it);
    for (const r of plan.manifest) manifestRowSchema.parse(r);
    for (const v of plan.videos) assert.ok(isPlainName(v.hash));
    for (const it of plan.items.filter((i) => i.hash)) {
      assert.ok(plan.manifest.some((r) => r.benchmark === it.benchmark && r.video_id === it.video_id && r.hash === it.hash));
    }
    // Answers: every item's answer letter indexes one of its options.
    for (const it of plan.items) assert.ok(it.answer.charCodeAt(0) - 65 < it.options.length);
  });

  it('plans ascending timestamps ("2 fps or 1024 frames max", 480 beyond 30 min)', () => {
    for (const v of planSample(1).videos) {
      const ts = Array.from({ length: v.nFrames }, (_, k) => plannedTimestamp(v, k));
      for (let k = 1; k < ts.length; k++) assert.ok(ts[k] > ts[k - 1]);
      const duration = (v.nFrames * v.spacingMs) / 1000;
      assert.equal(v.nFrames, Math.min(1024, Math.round(duration * 2)), v.hash);
      assert.equal(v.storedShortSide, duration > 1800 ? 480 : 720);
    }
  });

  it('describes itself as lists of hashes and item ids', () => {
    const plan = planSample(1);
    const facts = describeSample(plan);
    assert.equal(facts.itemsWithoutManifestRow.length, 1);
    assert.ok(facts.itemsWithoutFolder.length >= 1);
    assert.equal(facts.tooShort.length, 1);
    assert.ok(facts.stored480.length >= 2 && facts.long.length >= 4 && facts.lateStart.length >= 2);
    assert.ok(facts.square.length >= 1 && facts.portrait.length >= 2 && facts.vfr.length >= 1);
    assert.equal(facts.stored480.length + facts.stored720.length, plan.videos.length);
  });
});
