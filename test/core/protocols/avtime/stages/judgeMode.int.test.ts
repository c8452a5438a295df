// The judge's mode (SPEC-AVTIME §6): non-thinking by default (chat_template_kwargs.enable_thinking false),
// --judge-thinking turns it on; the mode is in run_config.json and in every response's identity, and a resume
// in the other mode is refused (exit 2) instead of mixing two judges.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runAvtime, type AvtimeHooks } from '../../../../../src/core/protocols/avtime/stages/run';
import { AvtimeRunLayout } from '../../../../../src/core/protocols/avtime/stages/layout';
import { judgeTemplate } from '../../../../../src/core/protocols/avtime/judge/prompts';
import { withJudgeMode } from '../../../../../src/core/protocols/avtime/judge/mode';
import { buildJudgeRequest } from '../../../../../src/core/protocols/avtime/judge/request';
import { responseIdentity, responseMatches } from '../../../../../src/core/protocols/avtime/judge/response';
import { JUDGE_KINDS, type JudgeKind } from '../../../../../src/core/protocols/avtime/judge/schemas';
import type { Query } from '../../../../../src/core/protocols/avtime/queries';
import type { Prediction } from '../../../../../src/core/protocols/avtime/normalize';
import { tmpDir } from './fixtures';
import { makeBench, judgeStub, targetStub } from './benchFixture';
import type { Stub } from './httpStub';

const hooks: AvtimeHooks = { log: () => undefined, clientOptions: { maxRetries: 0 } };

describe('avtime judge mode: non-thinking by default, never mixed on a resume', function () {
  this.timeout(60_000);
  const stubs: Stub[] = [];
  afterEach(async () => {
    await Promise.all(stubs.splice(0).map((s) => s.close()));
  });

  it('the two modes send different chat_template_kwargs and have different identities (prompt_version)', () => {
    const query = { query_id: 'q', video_id: 'v', axis: 'A', direction: 'e2t', reference_caption: 'a dog', reference_interval_ms: [0, 1000] } as Query;
    const prediction = { video_id: 'v', events: [{ start_ms: 0, end_ms: 1000, caption: 'a dog barks' }] } as unknown as Prediction;
    const base = Object.fromEntries(JUDGE_KINDS.map((k) => [k, judgeTemplate(k)])) as Record<JudgeKind, ReturnType<typeof judgeTemplate>>;
    const off = withJudgeMode(base, 'non-thinking').semantic_selector;
    const on = withJudgeMode(base, 'thinking').semantic_selector;
    assert.equal(off.prompt_version, 'avtime-judge-semantic_selector-v1+non-thinking');
    assert.equal(on.prompt_version, 'avtime-judge-semantic_selector-v1+thinking');
    assert.equal(on.prompt_sha256, off.prompt_sha256, 'the text is the same; the mode is what differs');
    const rOff = buildJudgeRequest(query, prediction, { template: off, model: 'j', pass: 1 });
    const rOn = buildJudgeRequest(query, prediction, { template: on, model: 'j', pass: 1 });
    assert.deepEqual(rOff.body.chat_template_kwargs, { enable_thinking: false });
    assert.deepEqual(rOn.body.chat_template_kwargs, { enable_thinking: true });
    const idOff = responseIdentity(rOff, off, 'm');
    const idOn = responseIdentity(rOn, on, 'm');
    assert.ok(!responseMatches(idOff, idOn) && !responseMatches(idOn, idOff));
    // Even with the same request bytes, a response stored under the other mode's prompt_version never matches.
    assert.ok(!responseMatches({ ...idOff, request_sha256: idOn.request_sha256 }, idOn));
    assert.throws(() => withJudgeMode(withJudgeMode(base, 'thinking'), 'non-thinking'), /already has the thinking mode/);
  });

  it('a run sends enable_thinking false and records the mode; a resume with --judge-thinking is refused (exit 2), nothing changed', async () => {
    const { root } = makeBench();
    const out = path.join(tmpDir('out'), 'r1');
    const t0 = await targetStub();
    const t1 = await targetStub();
    const j = await judgeStub();
    stubs.push(t0, t1, j);
    const s = { targetEndpoints: [t0.url, t1.url], judgeEndpoint: j.url };
    const res = await runAvtime('run', { benchRoot: root, outputRoot: out, runId: 'r1', ...s }, hooks);
    assert.equal(res.exitCode, 0, res.line);
    assert.ok(j.bodies.length > 0);
    for (const b of j.bodies) assert.deepEqual(b.chat_template_kwargs, { enable_thinking: false });
    const layout = new AvtimeRunLayout(out, 'r1');
    const config = JSON.parse(fs.readFileSync(layout.runConfig, 'utf8'));
    assert.equal(config.decoding.judge.mode, 'non-thinking');
    assert.deepEqual(config.decoding.judge.chat_template_kwargs, { enable_thinking: false });
    assert.equal(config.topology.judge.max_model_len, 16384);
    assert.equal(config.topology.judge.reasoning_parser, 'qwen3');
    assert.deepEqual(config.vllm_pins, { target: '≥ 0.18.0', judge: '≥ 0.17.0' });
    assert.equal(config.versions.vllm_judge, '0.18.0');
    for (const line of fs.readFileSync(layout.semanticResponses, 'utf8').trim().split('\n')) assert.match(JSON.parse(line).prompt_version, /\+non-thinking$/);

    const before = fs.readFileSync(layout.semanticResponses, 'utf8');
    const asked = j.bodies.length;
    for (const verb of ['judge', 'run'] as const) {
      const again = await runAvtime(verb, { benchRoot: root, outputRoot: out, runId: 'r1', resume: true, judgeThinking: true, ...s }, hooks);
      assert.equal(again.exitCode, 2, again.line);
      assert.match(again.line, /this run's judge is non-thinking; this resume asks for thinking: a run never mixes the two modes/);
    }
    assert.equal(j.bodies.length, asked, 'no judge request sent');
    assert.equal(fs.readFileSync(layout.semanticResponses, 'utf8'), before);
    // The same mode (or none given) is fine.
    const same = await runAvtime('judge', { benchRoot: root, outputRoot: out, runId: 'r1', resume: true, judgeThinking: false, ...s }, hooks);
    assert.equal(same.exitCode, 0, same.line);
  });

  it('--judge-thinking: enable_thinking true on every request, recorded as thinking', async () => {
    const { root } = makeBench();
    const out = path.join(tmpDir('out'), 'r2');
    const t0 = await targetStub();
    const t1 = await targetStub();
    const j = await judgeStub();
    stubs.push(t0, t1, j);
    const res = await runAvtime(
      'run',
      { benchRoot: root, outputRoot: out, runId: 'r2', targetEndpoints: [t0.url, t1.url], judgeEndpoint: j.url, judgeThinking: true },
      hooks,
    );
    assert.equal(res.exitCode, 0, res.line);
    for (const b of j.bodies) assert.deepEqual(b.chat_template_kwargs, { enable_thinking: true });
    const config = JSON.parse(fs.readFileSync(new AvtimeRunLayout(out, 'r2').runConfig, 'utf8'));
    assert.equal(config.decoding.judge.mode, 'thinking');
    assert.deepEqual(config.non_default_options.judgeThinking, true);
  });
});
