// The stand-in judge's thinking (SPEC-AVTIME §6) and the release each stand-in role plays (GET /version,
// `--version`): enable_thinking from chat_template_kwargs, the reasoning parser splitting </think>, the JSON
// schema applied after the thinking.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { JUDGE_SCHEMAS } from '../../../src/core/protocols/avtime/judge/schemas';
import { FAKE_VLLM, startStandin, type RunningStandin } from '../../core/serving/helpers';

const JUDGE = 'Qwen3.6-27B';
const PROMPT = 'Reference event:\n- the screen is red\n\nPredicted captions:\n0. the screen is red\n1. a dog barks\n';

function body(thinking: boolean | null, schema = true) {
  return {
    model: JUDGE,
    messages: [{ role: 'user', content: PROMPT }],
    temperature: 0,
    max_tokens: 512,
    ...(schema ? { response_format: { type: 'json_schema', json_schema: { name: 'a', schema: JUDGE_SCHEMAS.semantic_selector.schema, strict: true } } } : {}),
    ...(thinking === null ? {} : { chat_template_kwargs: { enable_thinking: thinking } }),
  };
}

async function post(url: string, b: unknown): Promise<{ status: number; json: any }> {
  const r = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) });
  return { status: r.status, json: await r.json() };
}

const msg = (r: { json: any }) => r.json.choices[0].message;

describe('stand-in judge: thinking and the reasoning parser (vLLM ≥ 0.16 `reasoning`, qwen3 parser)', function () {
  this.timeout(60_000);
  const started: RunningStandin[] = [];
  const judge = async (args: string[] = [], env: Record<string, string> = {}) => {
    const s = await startStandin(['--served-model-name', JUDGE, '--max-model-len', '16384', ...args], { FPSWEEP_STANDIN_LATENCY: 'a=0,b=0', ...env });
    started.push(s);
    return s;
  };
  after(async () => {
    for (const s of started) if (s.proc.exitCode === null) await s.stop();
  });

  it('with --reasoning-parser qwen3: thinking text only when enable_thinking is on (the default), JSON content either way', async () => {
    const s = await judge(['--reasoning-parser', 'qwen3']);
    const off = await post(s.url, body(false));
    assert.equal(off.status, 200);
    assert.equal(msg(off).reasoning, null);
    assert.deepEqual(JSON.parse(msg(off).content), { indices: [0] });
    assert.equal('reasoning_content' in msg(off), false, 'the field is `reasoning` in the pinned release');
    for (const thinking of [true, null]) {
      const on = await post(s.url, body(thinking));
      assert.equal(on.status, 200);
      assert.ok(typeof msg(on).reasoning === 'string' && msg(on).reasoning.length > 40, 'thinking text in message.reasoning');
      assert.ok(!msg(on).content.includes('</think>'));
      assert.equal(msg(on).content, msg(off).content, 'the schema applies after </think>: the same JSON');
      assert.ok(on.json.usage.completion_tokens > off.json.usage.completion_tokens + 40, 'thinking costs tokens');
    }
  });

  it('without a parser: a json_schema grammar holds from the first token (JSON, no thinking); with no schema the thinking lands in content', async () => {
    const s = await judge();
    const schema = await post(s.url, body(true));
    assert.deepEqual(JSON.parse(msg(schema).content), { indices: [0] });
    assert.equal(msg(schema).reasoning, null);
    const free = await post(s.url, body(true, false));
    assert.match(msg(free).content, /<\/think>/);
    const freeOff = await post(s.url, body(false, false));
    assert.doesNotMatch(msg(freeOff).content, /<\/think>/);
    const bad = await post(s.url, { ...body(true), chat_template_kwargs: { enable_thinking: 'no' } });
    assert.equal(bad.status, 400);
  });

  it('GET /version: the release the role plays (judge/target 0.18.0, FP 0.11.0), or FPSWEEP_STANDIN_VERSION', async () => {
    const j = await judge();
    assert.deepEqual(await (await fetch(`${j.url}/version`)).json(), { version: '0.18.0' });
    const old = await judge([], { FPSWEEP_STANDIN_VERSION: '0.11.0' });
    assert.deepEqual(await (await fetch(`${old.url}/version`)).json(), { version: '0.11.0' });
    const fp = await startStandin([], { FPSWEEP_STANDIN_LATENCY: 'a=0,b=0' });
    started.push(fp);
    assert.deepEqual(await (await fetch(`${fp.url}/version`)).json(), { version: '0.11.0' });
    const env = { ...process.env, PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin` };
    assert.equal(execFileSync(FAKE_VLLM, ['--version'], { env }).toString().trim(), '0.11.0');
    assert.equal(
      execFileSync(FAKE_VLLM, ['--version'], { env: { ...env, FPSWEEP_STANDIN_ROLE: 'target' } })
        .toString()
        .trim(),
      '0.18.0',
    );
  });

  it('refuses an unknown --reasoning-parser at start (argparse: exit 2)', async () => {
    await assert.rejects(judge(['--reasoning-parser', 'nope']), /invalid choice: 'nope'/);
  });
});
