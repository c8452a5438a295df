// The stand-in target plays the pinned vLLM release for Qwen3-Omni video requests (issue 18 point 7): the
// per-request use_audio_in_video feeds the video's track, the server-wide flag drops it (#47788), an audio_url
// part beside the video and a video without a track get a 400, the processor cache fails a second video with
// byte-identical audio (#44538), 32 frames unless the request says otherwise, and return_token_ids carries the
// placeholders in the counts the model would see.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { probeMedia, type MediaFacts } from '../../../src/core/serving/models/qwen3Omni/mediaFacts';
import { countPlaceholders, processorFrameSize, videoTokens } from '../../../src/core/serving/models/qwen3Omni/counts';
import { targetPlan } from '../../../src/core/serving/models/qwen3Omni/videoPlan';
import { buildTargetRequest } from '../../../src/core/protocols/avtime/stages/targetRequest';
import { startStandin, tmpDir, type RunningStandin } from '../../core/serving/helpers';

const MODEL = 'Qwen/Qwen3-Omni-30B-A3B-Instruct';

async function ffmpeg(args: string[]): Promise<void> {
  const { execa } = await import('execa');
  await execa('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);
}

async function post(url: string, body: unknown): Promise<{ status: number; json: any }> {
  const r = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, json: await r.json() };
}

describe('stand-in vLLM as the pinned release for the AVTime target', function () {
  this.timeout(90_000);
  let media: string;
  let a: string; // 6 s, 320x240, 25 fps, 44.1 kHz tone
  let b: string; // another picture, A's audio packets copied: byte-identical audio
  let silent: string;
  let facts: MediaFacts;
  const servers: RunningStandin[] = [];
  const start = async (extra: string[] = [], env: Record<string, string> = {}) => {
    const s = await startStandin(['--served-model-name', MODEL, '--allowed-local-media-path', media, ...extra], { FPSWEEP_STANDIN_LATENCY: 'a=0,b=0', ...env });
    servers.push(s);
    return s;
  };
  const body = (file: string, withPlan = true) => {
    const plan = targetPlan(facts, true);
    return { ...buildTargetRequest(MODEL, file, 'List the events.', true, withPlan ? plan : undefined), return_token_ids: true };
  };

  before(async () => {
    media = tmpDir('avrelease');
    [a, b, silent] = ['a.mp4', 'b.mp4', 'silent.mp4'].map((f) => path.join(media, f));
    const av = ['-c:v', 'libx264', '-preset', 'ultrafast'];
    await ffmpeg([
      '-f',
      'lavfi',
      '-i',
      'testsrc=s=320x240:r=25:d=6',
      '-f',
      'lavfi',
      '-i',
      'sine=f=330:d=6:sample_rate=44100',
      ...av,
      '-c:a',
      'aac',
      '-shortest',
      a,
    ]);
    await ffmpeg(['-f', 'lavfi', '-i', 'color=c=blue:s=320x240:r=25:d=6', '-i', a, '-map', '0:v', '-map', '1:a', ...av, '-c:a', 'copy', '-shortest', b]);
    await ffmpeg(['-f', 'lavfi', '-i', 'color=c=green:s=320x240:r=25:d=6', ...av, silent]);
    facts = await probeMedia(a);
  });
  after(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop()));
  });

  it('return_token_ids: the per-request flag and the plan fields give exactly the reference counts, and usage matches the ids', async () => {
    const s = await start(['--mm-processor-cache-gb', '0']);
    const r = await post(s.url, body(a));
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const plan = targetPlan(facts, true);
    assert.deepEqual(countPlaceholders(r.json.prompt_token_ids), plan.predicted);
    assert.equal(r.json.usage.prompt_tokens, r.json.prompt_token_ids.length);
    // Without return_token_ids there are no ids in the answer.
    const plain = await post(s.url, { ...body(a), return_token_ids: undefined });
    assert.equal(plain.json.prompt_token_ids, undefined);
  });

  it('32 uniform frames at the processor size unless the request says otherwise', async () => {
    const s = await start(['--mm-processor-cache-gb', '0']);
    const r = await post(s.url, body(a, false));
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const size = processorFrameSize(facts.height, facts.width);
    const got = countPlaceholders(r.json.prompt_token_ids);
    assert.equal(got.video, videoTokens(Math.min(32, facts.totalFrames), size.height, size.width));
    assert.notEqual(got.video, targetPlan(facts, true).predicted.video, 'the default differs from the reference’s 2 fps');
  });

  it('the server-wide --mm-processor-kwargs flag drops the audio silently (vLLM issue #47788)', async () => {
    const s = await start(['--mm-processor-cache-gb', '0', '--mm-processor-kwargs', '{"use_audio_in_video": true}']);
    const r = await post(s.url, body(a));
    assert.equal(r.status, 200);
    assert.equal(countPlaceholders(r.json.prompt_token_ids).audio, 0);
  });

  it('an audio_url part beside the video, and a video without an audio track: HTTP 400', async () => {
    const s = await start(['--mm-processor-cache-gb', '0']);
    const withAudioPart = body(a);
    (withAudioPart.messages[0].content as unknown[]).push({ type: 'audio_url', audio_url: { url: pathToFileURL(a).href } });
    const r1 = await post(s.url, withAudioPart);
    assert.equal(r1.status, 400);
    // Two audio items (the track and the part) against one video: the processor's own refusal (./standinCaption.int.test.ts).
    assert.match(r1.json.error.message, /use_audio_in_video requires equal number of audio and video items, got num_audios=2, num_videos=1/);
    const r2 = await post(s.url, body(silent));
    assert.equal(r2.status, 400);
    assert.match(r2.json.error.message, /no audio stream/);
  });

  it('processor cache on: a second video with byte-identical audio fails (#44538); --mm-processor-cache-gb 0 takes both', async () => {
    const cached = await start();
    assert.equal((await post(cached.url, body(a))).status, 200);
    assert.equal((await post(cached.url, body(a))).status, 200, 'the same video again is a full hit');
    const second = await post(cached.url, body(b));
    assert.equal(second.status, 400);
    assert.match(second.json.error.message, /Failed to apply Qwen3OmniMoeProcessor/);
    const off = await start(['--mm-processor-cache-gb', '0']);
    assert.equal((await post(off.url, body(a))).status, 200);
    assert.equal((await post(off.url, body(b))).status, 200);
  });
});
