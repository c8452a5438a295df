// The signals pass's parsers on ffmpeg's own words (a log captured from ffmpeg 5.1 over the cut sample's 25 s video),
// the threshold mapping and the pass's arguments.
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { fromScdetScale, parseSignalLog, signalArgs, toScdetScale, SCENE_FLOOR_RATIO } from '../../../../../src/core/protocols/cut/builtin/signals';

// ffmpeg -hide_banner -nostats -loglevel info -threads 1 -i cut_c_25s.mp4 -filter_complex '[0:v:0]scdet=…[v];[0:a:0]silencedetect=…[a]' …
const CAPTURED = `Input #0, mov,mp4,m4a,3gp,3g2,mj2, from '/tmp/bt/sample/cut_c_25s.mp4':
  Duration: 00:00:25.00, start: 0.000000, bitrate: 38 kb/s
  Stream #0:0[0x1](und): Video: h264 (Constrained Baseline) (avc1 / 0x31637661), yuv420p(progressive), 320x180 [SAR 1:1 DAR 16:9], 25 fps (default)
Stream mapping:
  Stream #0:0 (h264) -> scdet:default
  Stream #0:1 (aac) -> silencedetect:default
Output #0, null, to 'pipe:':
[silencedetect @ 0x55fa356a1240] silence_start: 6.60131
[scdet @ 0x55fa356a0780] lavfi.scd.score: 75.781, lavfi.scd.time: 7
[silencedetect @ 0x55fa356a1240] silence_end: 7.60006 | silence_duration: 0.99875
[scdet @ 0x55fa356a0780] lavfi.scd.score: 50.000, lavfi.scd.time: 9.52
[silencedetect @ 0x55fa356a1240] silence_start: 11.5
[silencedetect @ 0x55fa356a1240] silence_end: 12.5001 | silence_duration: 1.00006
[scdet @ 0x55fa356a0780] lavfi.scd.score: 24.609, lavfi.scd.time: 17
[silencedetect @ 0x55fa356a1240] silence_start: 17.8
[silencedetect @ 0x55fa356a1240] silence_end: 19.0001 | silence_duration: 1.20006
frame=  625 fps=0.0 q=-0.0 Lsize=N/A time=00:00:25.02 bitrate=N/A speed= 563x
video:288kB audio:782kB subtitle:0kB other streams:0kB global headers:0kB muxing overhead: unknown
`;

describe('builtin cutter: signals', () => {
  it("reads scene scores (to PySceneDetect's scale) and pauses from a captured ffmpeg log", () => {
    const s = parseSignalLog(CAPTURED, 25);
    assert.deepEqual(
      s.scenes.map((c) => [c.t, Math.round(c.score * 1000) / 1000]),
      [
        [7, 193.242],
        [9.52, 127.5],
        [17, 62.753],
      ],
    );
    assert.deepEqual(s.pauses, [
      { start: 6.60131, end: 7.60006 },
      { start: 11.5, end: 12.5001 },
      { start: 17.8, end: 19.0001 },
    ]);
  });

  it('closes a silence still open at the end of the log at the duration, and clamps a negative start to 0', () => {
    const log = [
      '[silencedetect @ 0x1] silence_start: -0.3',
      '[silencedetect @ 0x1] silence_end: 1.2 | silence_duration: 1.5',
      '[silencedetect @ 0x1] silence_start: 9.5',
    ].join('\n');
    assert.deepEqual(parseSignalLog(log, 10).pauses, [
      { start: 0, end: 1.2 },
      { start: 9.5, end: 10 },
    ]);
  });

  it('ignores other filters, stray ends and non-finite numbers', () => {
    const log = [
      '[Parsed_scdet_0 @ 0x1] something else: 3',
      '[silencedetect @ 0x1] silence_end: 2 | silence_duration: 1',
      '[scdet @ 0x1] lavfi.scd.score: nan, lavfi.scd.time: 3',
      '[scdet @ 0x1] lavfi.scd.score: 12.5, lavfi.scd.time: 4.04',
    ].join('\r\n');
    assert.deepEqual(parseSignalLog(log, 10), { scenes: [{ t: 4.04, score: fromScdetScale(12.5) }], pauses: [] });
  });

  it("maps AVCut's 24.0 to scdet's 9.41, both ways (property)", () => {
    assert.equal(Math.round(toScdetScale(24) * 100) / 100, 9.41);
    fc.assert(fc.property(fc.double({ min: 0, max: 255, noNaN: true }), (x) => Math.abs(fromScdetScale(toScdetScale(x)) - x) < 1e-9));
  });

  it('asks one pass for both signals, on one thread, with the floor below the threshold', () => {
    const a = signalArgs('/v/in.mp4', { sceneThreshold: 24, silenceNoiseDb: -35, silenceMinS: 0.3 });
    assert.equal(a.filter((x) => x === '-i').length, 1);
    assert.equal(a[a.indexOf('-threads') + 1], '1');
    const graph = a[a.indexOf('-filter_complex') + 1];
    assert.equal(graph, `[0:v:0]scdet=threshold=${(toScdetScale(24) * SCENE_FLOOR_RATIO).toFixed(3)}[v];[0:a:0]silencedetect=noise=-35dB:duration=0.3[a]`);
    assert.deepEqual(a.slice(-3), ['-f', 'null', '-']);
  });
});
