// The caption run type's stable shard rule and its resume signature (SPEC-AVTIME-DATA §2, §3; issue 25, points 5, 7).
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { shardRankOf } from '../../../../src/core/clips/shard';
import { captionSignature, type CaptionSignatureInput } from '../../../../src/core/protocols/caption/signature';

describe('caption shards and signatures', () => {
  it('the rank is blake2b-256(stem)[0..8] big-endian mod N, as Python hashlib computes it', () => {
    const stems = ['video_a', 'video_b', 'Ünïcode stem', '0', 'a'.repeat(200), ...Array.from({ length: 45 }, (_, i) => `clip-${i * 7919}`)];
    const script =
      'import hashlib,json,sys\nfor s,n in json.load(sys.stdin): print(int.from_bytes(hashlib.blake2b(s.encode(),digest_size=32).digest()[:8],"big") % n)';
    const cases = stems.flatMap((s) => [1, 2, 3, 7, 64].map((n) => [s, n] as const));
    const ref = execFileSync('/usr/bin/python3', ['-c', script], { input: JSON.stringify(cases), encoding: 'utf8' })
      .trim()
      .split('\n')
      .map(Number);
    assert.deepEqual(
      cases.map(([s, n]) => shardRankOf(s, n)),
      ref,
    );
    assert.throws(() => shardRankOf('x', 0), RangeError);
  });

  it('the signature changes with any clip or sidecar stamp, the segments, the model, the prompt or the decoding', () => {
    const base: CaptionSignatureInput = {
      segmentsSha256: 'a'.repeat(64),
      media: [
        { path: 'clips/clip_0001.mp4', size: 10, mtimeNs: '1700000000000000001' },
        { path: 'clips/clip_0001.mp3', size: 4, mtimeNs: '1700000000000000002' },
      ],
      model: 'Qwen/Qwen3-Omni-30B-A3B-Thinking',
      promptSha256: 'b'.repeat(64),
      decoding: { temperature: 0.6, top_p: 0.95, top_k: 20, fps: 4 },
    };
    const sig = captionSignature(base);
    assert.equal(captionSignature({ ...base, decoding: { fps: 4, top_k: 20, top_p: 0.95, temperature: 0.6 } }), sig, 'key order does not matter');
    const changed: CaptionSignatureInput[] = [
      { ...base, segmentsSha256: 'c'.repeat(64) },
      { ...base, media: [base.media[0], { ...base.media[1], mtimeNs: '1700000000000000003' }] },
      { ...base, media: [{ ...base.media[0], size: 11 }, base.media[1]] },
      { ...base, media: [base.media[1], base.media[0]] },
      { ...base, model: 'other' },
      { ...base, promptSha256: 'd'.repeat(64) },
      { ...base, decoding: { ...base.decoding, fps: 2 } },
    ];
    for (const c of changed) assert.notEqual(captionSignature(c), sig, JSON.stringify(c));
  });
});
