import { strict as assert } from 'node:assert';
import { normalizePrediction, predictionReport } from '../../../../src/core/protocols/avtime/normalize';

describe('avtime/normalize', () => {
  it('a prediction line: sorted, merged, in ms, with the prose kept as warnings', () => {
    const cap = 'a woman sings a slow song while playing the piano in a dim room';
    const o = normalizePrediction({
      id: 'r1',
      video_id: 'v1',
      duration_ms: 60_000,
      response: `Sure!\nFrom 20 to 29, applause\nFrom 00 to 09, ${cap}\nFrom 10 to 19, ${cap}.`,
    });
    assert.equal(o.kind, 'ok');
    if (o.kind !== 'ok') return;
    assert.deepEqual(o.prediction, {
      id: 'r1',
      video_id: 'v1',
      duration_ms: 60_000,
      events: [
        { start_pct: 0, end_pct: 19, start_ms: 0, end_ms: 12_000, caption: cap },
        { start_pct: 20, end_pct: 29, start_ms: 12_000, end_ms: 18_000, caption: 'applause' },
      ],
      warnings: [{ line: 1, text: 'Sure!', reason: 'not_an_event' }],
    });
    assert.deepEqual(o.stats, { parsed_events: 3, merged_away: 1 });
  });
  it('no event line → a failure with the warnings, and the report counts it', () => {
    const f = normalizePrediction({ id: 'r2', video_id: 'v2', duration_ms: 1000, response: 'I cannot see the video.\n\nFrom 9 to 10, bad' });
    assert.deepEqual(f, {
      kind: 'failure',
      failure: {
        id: 'r2',
        video_id: 'v2',
        reason: 'no_event_lines',
        warnings: [
          { line: 1, text: 'I cannot see the video.', reason: 'not_an_event' },
          { line: 3, text: 'From 9 to 10, bad', reason: 'not_an_event' },
        ],
      },
      stats: { parsed_events: 0, merged_away: 0 },
    });
    const ok = normalizePrediction({ id: 'r3', video_id: 'v3', duration_ms: 1000, response: 'From 00 to 99, all' });
    const rep = predictionReport({ model_id: 'm', decoding: { temperature: 0 }, outcomes: [f, ok] });
    assert.equal(rep.protocol, 'longvale_train_dvc_v1');
    assert.equal(rep.merge.ratio_gt, 0.98);
    assert.deepEqual(rep.counts, { inputs: 2, predictions: 1, failures: 1, parsed_events: 1, events: 1, merged_away: 0, warnings: 2 });
  });
});
