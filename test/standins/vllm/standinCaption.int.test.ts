// The stand-in's caption role (issue 25, point 9): a Qwen3-Omni request with the clip as a video_url, its mp3 sidecar
// as an audio_url and use_audio_in_video false is answered as the pinned vLLM (v0.18.0) would: a Thinking model's
// <think> block then 1–3 events inside the clip (recomputed here), prompt tokens from the processor's counts, and each
// refusal in vLLM's words; plus the fault knobs keyed by the clip's path.
import * as assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { buildCaptionRequest, captionFrameCount } from '../../../src/core/protocols/caption/request';
import { parseCaptionAnswer } from '../../../src/core/protocols/caption/answer';
import { CAPTION_PROMPT_V1 } from '../../../src/core/protocols/caption/prompt';
import { probeMedia, type MediaFacts } from '../../../src/core/serving/models/qwen3Omni/mediaFacts';
import { audioTokens, countPlaceholders, processorFrameSize, resampledLength, videoTokens } from '../../../src/core/serving/models/qwen3Omni/counts';
import { captionEvents } from '../../../src/standins/vllm/avtime/captionReply';
import { startStandin, tmpDir, type RunningStandin } from '../../core/serving/helpers';

const MODEL = 'Qwen/Qwen3-Omni-30B-A3B-Thinking';

async function ffmpeg(args: string[]): Promise<void> {
  const { execa } = await import('execa');
  await execa('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', ...args]);
}

async function post(url: string, body: unknown): Promise<{ status: number; json: any }> {
  const r = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, json: await r.json() };
}

/** The content after the last </think> (SPEC-AVTIME-DATA §3's parser does the same). */
const afterThink = (content: string) => content.slice(content.lastIndexOf('</think>') + '</think>'.length);

describe('stand-in vLLM: the caption role (a clip, its mp3 sidecar, use_audio_in_video false)', function () {
  this.timeout(90_000);
  let media: string;
  let clip: string; // 4 s, 320x240 at 25 fps, with a 44.1 kHz tone
  let mp3: string;
  let clip2: string;
  let facts: MediaFacts;
  let mp3Facts: { sampleRate: number; samples: number };
  const servers: RunningStandin[] = [];
  const start = async (extra: string[] = [], env: Record<string, string> = {}) => {
    const s = await startStandin(['--served-model-name', MODEL, '--allowed-local-media-path', media, '--max-model-len', '65536', ...extra], {
      FPSWEEP_STANDIN_LATENCY: 'a=0,b=0',
      ...env,
    });
    servers.push(s);
    return s;
  };
  const body = (file = clip, sidecar = file.replace(/\.mp4$/, '.mp3'), extra: Record<string, unknown> = {}) => ({
    ...buildCaptionRequest({ model: MODEL, clipPath: file, sidecarPath: sidecar, prompt: CAPTION_PROMPT_V1, durationS: 4, totalFrames: facts.totalFrames }),
    return_token_ids: true,
    ...extra,
  });

  before(async () => {
    media = tmpDir('caption-role');
    mkdirSync(path.join(media, 'v', 'clips'), { recursive: true });
    clip = path.join(media, 'v', 'clips', 'clip_0001.mp4');
    mp3 = path.join(media, 'v', 'clips', 'clip_0001.mp3');
    clip2 = path.join(media, 'v', 'clips', 'clip_0002.mp4');
    const src = ['-f', 'lavfi', '-i', 'testsrc=s=320x240:r=25:d=4', '-f', 'lavfi', '-i', 'sine=f=330:d=4:sample_rate=44100'];
    await ffmpeg([...src, '-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac', '-shortest', clip]);
    await ffmpeg(['-i', clip, '-vn', '-c:a', 'libmp3lame', '-b:a', '32k', mp3]);
    copyFileSync(clip, clip2);
    copyFileSync(mp3, clip2.replace(/\.mp4$/, '.mp3'));
    writeFileSync(path.join(media, 'v', 'clips', 'broken.mp4'), 'not a video at all');
    writeFileSync(path.join(media, 'v', 'clips', 'broken.mp3'), 'not audio at all');
    facts = await probeMedia(clip);
    const { execa } = await import('execa');
    const p = JSON.parse((await execa('ffprobe', ['-v', 'error', '-show_entries', 'stream=sample_rate,duration', '-of', 'json', mp3])).stdout);
    mp3Facts = { sampleRate: Number(p.streams[0].sample_rate), samples: Math.round(Number(p.streams[0].duration) * Number(p.streams[0].sample_rate)) };
  });
  after(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop()));
  });

  it('answers <think>…</think> then 1–3 events inside the clip, recomputable from the request; usage from the processor counts', async () => {
    const s = await start(['--limit-mm-per-prompt', '{"video": 1, "audio": 1}']);
    const r = await post(s.url, body());
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const content: string = r.json.choices[0].message.content;
    assert.match(content, /^<think>\n[\s\S]+\n<\/think>\n\n/);
    const parsed = parseCaptionAnswer(content);
    assert.ok(parsed.ok, content);
    const { execa } = await import('execa');
    const d = Number((await execa('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', clip])).stdout);
    const expected = captionEvents(clip, CAPTION_PROMPT_V1, d);
    assert.deepEqual(
      parsed.events.map((e) => [e.start_sec, e.end_sec]),
      expected.map((e) => [e.start_sec, e.end_sec]),
    );
    assert.ok(expected.length >= 1 && expected.length <= 3);
    for (const e of expected) assert.ok(e.start_sec >= 0 && e.end_sec <= d + 1e-9, JSON.stringify(e));
    // The counts: the loader's frames (num_frames with fps), the processor's size, the sidecar's audio at 16 kHz.
    const frames = captionFrameCount(4, facts.totalFrames);
    const size = processorFrameSize(facts.height, facts.width);
    assert.deepEqual(countPlaceholders(r.json.prompt_token_ids), {
      video: videoTokens(frames, size.height, size.width),
      audio: audioTokens(resampledLength(mp3Facts.samples, mp3Facts.sampleRate)),
    });
    assert.equal(r.json.usage.prompt_tokens, r.json.prompt_token_ids.length);
    // The same request answers the same; another clip answers from its own path.
    assert.equal((await post(s.url, body())).json.choices[0].message.content, content);
    assert.notEqual((await post(s.url, body(clip2))).json.choices[0].message.content, content);
  });

  it('with --reasoning-parser qwen3 the thinking is message.reasoning and content is the answer alone', async () => {
    const s = await start(['--reasoning-parser', 'qwen3']);
    const r = await post(s.url, body());
    assert.equal(r.status, 200, JSON.stringify(r.json));
    assert.doesNotMatch(r.json.choices[0].message.content, /think>/);
    assert.match(r.json.choices[0].message.reasoning, /listen to the audio/);
    assert.ok(parseCaptionAnswer(r.json.choices[0].message.content).ok);
  });

  it('refuses media outside --allowed-local-media-path and unreadable media in vLLM’s words (400)', async () => {
    const s = await start();
    const outside = tmpDir('caption-outside');
    const far = path.join(outside, 'clip_0001.mp4');
    copyFileSync(clip, far);
    copyFileSync(mp3, far.replace(/\.mp4$/, '.mp3'));
    const r1 = await post(s.url, body(far));
    assert.equal(r1.status, 400);
    assert.equal(r1.json.error.message, `The file path ${far} must be a subpath of \`--allowed-local-media-path\` ${media}. None`);
    const r2 = await post(s.url, body(clip, far.replace(/\.mp4$/, '.mp3')));
    assert.equal(r2.status, 400);
    assert.match(r2.json.error.message, /must be a subpath of `--allowed-local-media-path`/);
    const badVideo = path.join(media, 'v', 'clips', 'broken.mp4');
    const r3 = await post(s.url, body(badVideo, mp3));
    assert.equal(r3.status, 400);
    assert.equal(r3.json.error.message, 'Could not open video stream None');
    const r4 = await post(s.url, body(clip, badVideo.replace(/\.mp4$/, '.mp3')));
    assert.equal(r4.status, 400);
    assert.equal(r4.json.error.message, 'Invalid or unsupported audio file. None');
    assert.equal(r4.json.error.type, 'BadRequestError');
  });

  it('use_audio_in_video true beside an audio_url: two audio items, refused by the limit or by the processor', async () => {
    const on = (b: ReturnType<typeof body>) => ({ ...b, mm_processor_kwargs: { ...b.mm_processor_kwargs, use_audio_in_video: true } });
    const limited = await start(['--limit-mm-per-prompt', '{"video": 1, "audio": 1}']);
    const r1 = await post(limited.url, on(body()));
    assert.equal(r1.status, 400);
    assert.equal(r1.json.error.message, 'At most 1 audio(s) may be provided in one prompt. None');
    const open = await start();
    const r2 = await post(open.url, on(body()));
    assert.equal(r2.status, 400);
    assert.equal(r2.json.error.message, 'use_audio_in_video requires equal number of audio and video items, got num_audios=2, num_videos=1 None');
    // More videos than the limit: refused before any media is read.
    const two = body();
    (two.messages[0].content as unknown[]).unshift({ type: 'video_url', video_url: { url: 'file:///nowhere.mp4' } });
    const r3 = await post(limited.url, two);
    assert.equal(r3.status, 400);
    assert.equal(r3.json.error.message, 'At most 1 video(s) may be provided in one prompt. None');
  });

  it('a prompt longer than --max-model-len is refused with the engine’s words', async () => {
    const s = await start(['--max-model-len', '1000']);
    const r = await post(s.url, body());
    assert.equal(r.status, 400);
    assert.match(r.json.error.message, /^The decoder prompt \(length (\d+)\) is longer than the maximum model length of 1000\./);
    const ok = await post((await start()).url, body());
    assert.equal(Number(/length (\d+)/.exec(r.json.error.message)![1]), ok.json.usage.prompt_tokens, 'the refused length is the counted prompt');
  });

  it('a release below 0.18.0 ignores media_io_kwargs (with protocol.py’s warning): the loader’s 32 frames', async () => {
    const old = await start([], { FPSWEEP_STANDIN_VERSION: '0.17.1' });
    const r = await post(old.url, body());
    assert.equal(r.status, 200, JSON.stringify(r.json));
    const size = processorFrameSize(facts.height, facts.width);
    assert.equal(countPlaceholders(r.json.prompt_token_ids).video, videoTokens(Math.min(32, facts.totalFrames), size.height, size.width));
    assert.match(old.output(), /The following fields were present in the request but ignored: \{'media_io_kwargs'\}/);
    const pinned = await start();
    const frames = captionFrameCount(4, facts.totalFrames);
    assert.notEqual(frames, 32);
    assert.equal(countPlaceholders((await post(pinned.url, body())).json.prompt_token_ids).video, videoTokens(frames, size.height, size.width));
  });

  it('fault knobs by clip path: 400 always, 503 the first N times, a first answer with no JSON', async () => {
    const s = await start([], {
      FPSWEEP_STANDIN_CAPTION_400: 'clip_0002\\.mp4$',
      FPSWEEP_STANDIN_CAPTION_503: 'clip_0001\\.mp4$',
      FPSWEEP_STANDIN_CAPTION: 'times503=2',
    });
    for (let i = 0; i < 2; i++) {
      const r = await post(s.url, body(clip2));
      assert.equal(r.status, 400);
      assert.match(r.json.error.message, /stand-in fault/);
    }
    assert.equal((await post(s.url, body())).status, 503);
    assert.equal((await post(s.url, body())).status, 503);
    assert.equal((await post(s.url, body())).status, 200);
    const t = await start([], { FPSWEEP_STANDIN_CAPTION_NOT_JSON: 'clip_0001' });
    const first = await post(t.url, body());
    assert.equal(first.status, 200);
    assert.equal(parseCaptionAnswer(first.json.choices[0].message.content).ok, false, afterThink(first.json.choices[0].message.content));
    const second = await post(t.url, body());
    assert.ok(parseCaptionAnswer(second.json.choices[0].message.content).ok);
    assert.ok(parseCaptionAnswer((await post(t.url, body(clip2))).json.choices[0].message.content).ok, 'another clip answers JSON at once');
  });
});
