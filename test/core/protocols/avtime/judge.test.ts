import { strict as assert } from 'node:assert';
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../../src/core/protocols/avtime/judge/canonicalJson';
import { DEFAULT_JUDGE_TEMPLATES, judgeTemplate } from '../../../../src/core/protocols/avtime/judge/prompts';
import { activeEventIds, buildJudgeRequest, needsJudge } from '../../../../src/core/protocols/avtime/judge/request';
import { IDENTITY_FIELDS, parseJudgeResponse, responseIdentity, responseMatches } from '../../../../src/core/protocols/avtime/judge/response';
import { JUDGE_SCHEMAS } from '../../../../src/core/protocols/avtime/judge/schemas';
import type { Prediction } from '../../../../src/core/protocols/avtime/normalize';
import { QuerySchema, type Query } from '../../../../src/core/protocols/avtime/queries';

const prediction: Prediction = {
  id: 'r1',
  video_id: 'v1',
  duration_ms: 10_000,
  events: [
    { start_pct: 0, end_pct: 9, start_ms: 0, end_ms: 1000, caption: 'a man says hello' },
    { start_pct: 5, end_pct: 49, start_ms: 500, end_ms: 5000, caption: 'guitar music plays' },
    { start_pct: 50, end_pct: 99, start_ms: 5000, end_ms: 10_000, caption: 'a dog barks {{reference}}' },
  ],
  warnings: [],
};
const t2e = QuerySchema.parse({ query_id: 'q1', video_id: 'v1', axis: 'A', direction: 't2e', time_ms: 700, reference_captions: ['someone greets', 'music'] });
const e2t = QuerySchema.parse({ query_id: 'q2', video_id: 'v1', axis: 'V', direction: 'e2t', reference_caption: 'a dog', reference_interval_ms: [4000, 9000] });
const e2e = QuerySchema.parse({
  query_id: 'q3',
  video_id: 'v1',
  axis: 'A',
  direction: 'e2e',
  events: [
    { caption: 'greeting', interval_ms: [0, 900] },
    { caption: 'barking', interval_ms: [6000, 8000] },
  ],
  relation: 'before',
});

describe('avtime/queries', () => {
  it('rejects extra keys, empty intervals and a wrong axis', () => {
    assert.equal(QuerySchema.safeParse({ ...e2t, extra: 1 }).success, false);
    assert.equal(QuerySchema.safeParse({ ...e2t, reference_interval_ms: [5, 5] }).success, false);
    assert.equal(QuerySchema.safeParse({ ...e2t, axis: 'AV' }).success, false);
    assert.equal(QuerySchema.safeParse({ ...t2e, time_ms: 1.5 }).success, false);
  });
});

describe('avtime/judge requests', () => {
  it('t2e: only when an event is active (start_ms ≤ t < end_ms); shows the active captions only', () => {
    assert.deepEqual(activeEventIds(prediction, 700), [0, 1]);
    assert.deepEqual(activeEventIds(prediction, 1000), [1]);
    assert.deepEqual(activeEventIds(prediction, 5000), [2]);
    assert.deepEqual(activeEventIds(prediction, 10_000), []);
    assert.equal(needsJudge(t2e, prediction), true);
    assert.equal(needsJudge({ ...t2e, time_ms: 10_000 } as Query, prediction), false);
    assert.throws(
      () => buildJudgeRequest({ ...t2e, time_ms: 10_000 } as Query, prediction, { template: judgeTemplate('t2e_scalar'), model: 'j', pass: 1 }),
      /needsJudge/,
    );
    const r = buildJudgeRequest(t2e, prediction, { template: judgeTemplate('t2e_scalar'), model: 'judge', pass: 1 });
    const text = r.body.messages[0].content;
    assert.ok(text.includes('Reference captions:\n- someone greets\n- music\n'));
    assert.ok(text.includes('Model captions:\n0. a man says hello\n1. guitar music plays\n'));
    assert.ok(text.includes('Axis A (audio)'));
    assert.ok(!text.includes('dog'));
  });
  it('the body, its hash, the identity line; pass 2 at 4096 tokens', () => {
    const r1 = buildJudgeRequest(e2t, prediction, { template: judgeTemplate('semantic_selector'), model: 'judge', pass: 1 });
    const r2 = buildJudgeRequest(e2t, prediction, { template: judgeTemplate('semantic_selector'), model: 'judge', pass: 2 });
    assert.deepEqual(Object.keys(r1), ['query_id', 'axis', 'branch', 'video_id', 'request_type', 'pass', 'request_sha256', 'body']);
    assert.deepEqual([r1.query_id, r1.axis, r1.branch, r1.video_id, r1.request_type, r1.pass], ['q2', 'V', 'main', 'v1', 'semantic_selector', 1]);
    assert.equal(r1.body.temperature, 0);
    assert.equal(r1.body.max_tokens, 512);
    assert.equal(r2.body.max_tokens, 4096);
    assert.deepEqual(r1.body.response_format, {
      type: 'json_schema',
      json_schema: { name: 'avtime_semantic_selector', schema: JUDGE_SCHEMAS.semantic_selector.schema, strict: true },
    });
    const canon = canonicalJson(r1.body);
    assert.ok(!/\s"|":\s|,\s"/.test(canon.replace(/"(?:[^"\\]|\\.)*"/g, '""')), 'no spaces outside strings');
    assert.ok(canon.startsWith('{"chat_template_kwargs":{"enable_thinking":false},"max_tokens":512,"messages":'), 'sorted keys; non-thinking by default');
    assert.equal(r1.request_sha256, createHash('sha256').update(canon).digest('hex'));
    assert.notEqual(r1.request_sha256, r2.request_sha256);
    // All captions, numbered from 0 in event order; a caption's "{{reference}}" is text, not a placeholder.
    assert.ok(r1.body.messages[0].content.includes('0. a man says hello\n1. guitar music plays\n2. a dog barks {{reference}}\n'));
    assert.ok(r1.body.messages[0].content.includes('Reference event:\n- a dog\n'));
    const pair = buildJudgeRequest(e2e, prediction, { template: judgeTemplate('semantic_pair_selector'), model: 'judge', pass: 1 });
    assert.equal(pair.branch, 'pair');
    assert.ok(pair.body.messages[0].content.includes('Reference events:\n- greeting\n- barking\n'));
    // Never a timestamp: no number of the prediction's or the query's times appears.
    for (const r of [r1, pair]) for (const n of ['1000', '5000', '4000', '9000', '900', '6000']) assert.ok(!r.body.messages[0].content.includes(n));
  });
  it('templates: defaults versioned, overrides checked and hashed, the wrong kind refused', () => {
    const d = judgeTemplate('t2e_scalar');
    assert.equal(d.prompt_version, 'avtime-judge-t2e_scalar-v1');
    assert.equal(d.prompt_sha256, createHash('sha256').update(DEFAULT_JUDGE_TEMPLATES.t2e_scalar).digest('hex'));
    const o = judgeTemplate('t2e_scalar', 'R {{axis_rubric}} {{reference}} P {{predictions}}');
    assert.match(o.prompt_version, /^override-[0-9a-f]{16}$/);
    assert.throws(() => judgeTemplate('t2e_scalar', '{{axis_rubric}} {{reference}}'), /missing \{\{predictions\}\}/);
    assert.throws(() => judgeTemplate('t2e_scalar', '{{axis_rubric}} {{reference}} {{predictions}} {{time}}'), /unknown \{\{time\}\}/);
    assert.throws(() => buildJudgeRequest(e2t, prediction, { template: d, model: 'j', pass: 1 }), /needs a semantic_selector template/);
    assert.throws(
      () => buildJudgeRequest({ ...e2t, video_id: 'v9' } as Query, prediction, { template: judgeTemplate('semantic_selector'), model: 'j', pass: 1 }),
      /video v9/,
    );
  });
});

describe('avtime/judge responses', () => {
  it('accepts exactly the schema', () => {
    assert.deepEqual(parseJudgeResponse('t2e_scalar', ' {"score": 3} ', 0), { ok: true, value: { score: 3 } });
    assert.deepEqual(parseJudgeResponse('semantic_selector', '{"indices":[2,0]}', 3), { ok: true, value: { indices: [2, 0] } });
    assert.deepEqual(parseJudgeResponse('semantic_pair_selector', '{"indices_b":[],"indices_a":[1]}', 3), {
      ok: true,
      value: { indices_a: [1], indices_b: [] },
    });
  });
  it('fails: not JSON, schema broken, index out of range', () => {
    const reason = (k: Parameters<typeof parseJudgeResponse>[0], s: string, n = 3) => {
      const r = parseJudgeResponse(k, s, n);
      return r.ok ? 'ok' : r.reason;
    };
    assert.equal(reason('t2e_scalar', '```json\n{"score": 3}\n```'), 'not_json');
    assert.equal(reason('t2e_scalar', '{"score": 3'), 'not_json');
    assert.equal(reason('t2e_scalar', '{"score": 5}'), 'schema');
    assert.equal(reason('t2e_scalar', '{"score": -1}'), 'schema');
    assert.equal(reason('t2e_scalar', '{"score": 2.0}'), 'schema');
    assert.equal(reason('t2e_scalar', '{"score": 2e0}'), 'schema');
    assert.equal(reason('t2e_scalar', '{"score": "3"}'), 'schema');
    assert.equal(reason('t2e_scalar', '{"score": 3, "why": "close"}'), 'schema');
    assert.equal(reason('t2e_scalar', '[3]'), 'schema');
    assert.equal(reason('semantic_selector', '{"indices": [1.5]}'), 'schema');
    assert.equal(reason('semantic_selector', '{"indices": 1}'), 'schema');
    assert.equal(reason('semantic_selector', '{}'), 'schema');
    assert.equal(reason('semantic_selector', '{"indices": [3]}'), 'index_out_of_range');
    assert.equal(reason('semantic_selector', '{"indices": [-1]}'), 'index_out_of_range');
    assert.equal(reason('semantic_pair_selector', '{"indices_a": [0]}'), 'schema');
    assert.equal(reason('semantic_pair_selector', '{"indices_a": [0], "indices_b": [7]}'), 'index_out_of_range');
  });
  it('reuse only under the full identity match', () => {
    const req = buildJudgeRequest(e2e, prediction, { template: judgeTemplate('semantic_pair_selector'), model: 'judge', pass: 1 });
    const wanted = responseIdentity(req, judgeTemplate('semantic_pair_selector'), 'judge-v1');
    assert.equal(wanted.schema_sha256, JUDGE_SCHEMAS.semantic_pair_selector.schema_sha256);
    assert.ok(responseMatches({ ...wanted }, wanted));
    assert.equal(IDENTITY_FIELDS.length, 11);
    for (const f of IDENTITY_FIELDS) {
      assert.equal(responseMatches({ ...wanted, [f]: `${wanted[f]}x` }, wanted), false, f);
      const missing: Partial<typeof wanted> = { ...wanted };
      delete missing[f];
      assert.equal(responseMatches(missing, wanted), false, `${f} missing`);
    }
  });
});
