// The caption viewer's sound in step with its picture (issue 36 point 2; media/src/protocols/caption/avSync.ts): the
// video is the clock, the MP3 sidecar follows it on play, pause, seek and rate, within 0.05 s while both play and
// placed exactly at each seek, play and pause; a sidecar shorter than the video ends at its end. And what the view
// can play (playability.ts): the sidecar where the browser plays MP3, the clip's own track where only AAC plays, the
// system player offered where the picture or every sound cannot play (VS Code desktop: no AAC).
import * as assert from 'node:assert/strict';
import { drift, followVideo, PLAYING_DRIFT_S, type AudioClock, type VideoClock } from '../../../../media/src/protocols/caption/avSync';
import { clipPlayability, mediaErrorNotice, SIDECAR_TYPE } from '../../../../media/src/protocols/caption/playability';

const video = (o: Partial<VideoClock> = {}): VideoClock => ({ time: 1, paused: false, rate: 1, seeking: false, waiting: false, ...o });
const audio = (o: Partial<AudioClock> = {}): AudioClock => ({ time: 1, paused: false, rate: 1, duration: 4, ...o });

/** A tiny simulation: both clocks advance `dt` at their rates while playing, then the audio takes the step. */
function tick(v: VideoClock, a: AudioClock, dt: number, event = 'timeupdate'): void {
  if (!v.paused && !v.seeking && !v.waiting) v.time += dt * v.rate;
  if (!a.paused) a.time = Math.min(a.time + dt * a.rate, a.duration);
  const s = followVideo(v, a, event);
  if (s.rate !== null) a.rate = s.rate;
  if (s.seekTo !== null) a.time = s.seekTo;
  if (s.play !== null) a.paused = !s.play;
}

describe('caption viewer: the sidecar follows the video (avSync)', () => {
  it('in step: nothing to do', () => {
    assert.deepEqual(followVideo(video(), audio({ time: 1.02 }), 'timeupdate'), { seekTo: null, play: null, rate: null });
  });

  it('video plays, audio paused: placed at the video and played', () => {
    assert.deepEqual(followVideo(video({ time: 2.5 }), audio({ time: 0, paused: true }), 'play'), { seekTo: 2.5, play: true, rate: null });
  });

  it('video paused: audio paused at the same instant', () => {
    assert.deepEqual(followVideo(video({ paused: true, time: 1.7 }), audio({ time: 1.73 }), 'pause'), { seekTo: 1.7, play: false, rate: null });
  });

  it('a seek: the audio waits paused at the target while seeking, and plays from it once seeked', () => {
    assert.deepEqual(followVideo(video({ time: 3, seeking: true }), audio({ time: 0.4 }), 'seeking'), { seekTo: 3, play: false, rate: null });
    assert.deepEqual(followVideo(video({ time: 3.004 }), audio({ time: 3, paused: true }), 'seeked'), { seekTo: null, play: true, rate: null });
  });

  it('a rate change is copied; drift while playing is corrected only past the tolerance', () => {
    assert.deepEqual(followVideo(video({ rate: 1.5 }), audio(), 'ratechange'), { seekTo: null, play: null, rate: 1.5 });
    assert.equal(followVideo(video(), audio({ time: 1 + PLAYING_DRIFT_S * 0.8 }), 'timeupdate').seekTo, null);
    assert.equal(followVideo(video(), audio({ time: 1 + PLAYING_DRIFT_S * 1.5 }), 'timeupdate').seekTo, 1);
  });

  it('the video stalls (waiting): the audio waits', () => {
    assert.equal(followVideo(video({ waiting: true }), audio(), 'waiting').play, false);
  });

  it('a sidecar shorter than the video: placed at its end, not played past it; drift counts to its end', () => {
    assert.deepEqual(followVideo(video({ time: 4.2 }), audio({ time: 3.5, duration: 4 }), 'seeked'), { seekTo: 4, play: false, rate: null });
    assert.equal(drift(video({ time: 4.2 }), audio({ time: 4, duration: 4 })), 0);
  });

  it('audio metadata not loaded yet (NaN duration): follows the video without an end', () => {
    assert.deepEqual(followVideo(video({ time: 2 }), audio({ time: 0, paused: true, duration: NaN }), 'loadedmetadata'), { seekTo: 2, play: true, rate: null });
  });

  it('simulated: play, rate 2, seek back, a late audio start, pause — the drift stays under 0.1 s at every tick', () => {
    const v = video({ time: 0, paused: true });
    const a = audio({ time: 0, paused: true, duration: 30 });
    const worst: number[] = [];
    const run = (ticks: number, dt = 0.25) => {
      for (let i = 0; i < ticks; i++) {
        tick(v, a, dt);
        worst.push(Math.abs(drift(v, a)));
      }
    };
    v.paused = false;
    tick(v, a, 0, 'play');
    run(8);
    v.rate = 2;
    tick(v, a, 0, 'ratechange');
    run(8);
    v.seeking = true;
    v.time = 1.25;
    tick(v, a, 0, 'seeking');
    v.seeking = false;
    tick(v, a, 0, 'seeked');
    a.time -= 0.3; // the audio element started late (its decoder warming up)
    run(8);
    v.paused = true;
    tick(v, a, 0, 'pause');
    assert.ok(Math.max(...worst.slice(-7)) < 0.1, `drift: ${worst.join(', ')}`);
    assert.ok(a.paused && Math.abs(drift(v, a)) < 0.011);
  });
});

describe('caption viewer: what this view can play (playability)', () => {
  const desktop = (t: string) => (t.includes('mp4a') ? '' : t.startsWith('video/mp4') || t === SIDECAR_TYPE ? 'probably' : '');
  const chromium = (t: string) => (t.startsWith('video/mp4') || t === SIDECAR_TYPE ? 'probably' : '');
  const nothing = () => '';

  it('VS Code desktop (no AAC): the sidecar is the sound, nothing to say', () => {
    assert.deepEqual(clipPlayability('clips/clip_0001.mp4', true, desktop), { video: true, sound: 'sidecar', notice: null, offerSystemPlayer: false });
  });

  it("no sidecar where AAC plays: the clip's own track", () => {
    assert.equal(clipPlayability('clips/clip_0001.mp4', false, chromium).sound, 'track');
  });

  it('no sidecar and no AAC: no sound, said, and the system player offered', () => {
    const p = clipPlayability('clips/clip_0001.mp4', false, desktop);
    assert.equal(p.sound, 'none');
    assert.match(p.notice ?? '', /No sound here: the clip has no MP3 sidecar/);
    assert.equal(p.offerSystemPlayer, true);
  });

  it('a format the browser cannot play (canPlayType says ""): said, and the system player offered', () => {
    const p = clipPlayability('clips/clip_0001.mp4', true, nothing);
    assert.equal(p.video, false);
    assert.match(p.notice ?? '', /cannot play H\.264 video in MP4/);
    assert.equal(p.offerSystemPlayer, true);
    assert.match(clipPlayability('clips/clip_0001.mkv', true, chromium).notice ?? '', /cannot play a \.mkv file/);
  });

  it('a load error of an unsupported source is said the same way; others are not', () => {
    assert.match(mediaErrorNotice(4) ?? '', /system player/);
    assert.equal(mediaErrorNotice(1), null);
  });
});
