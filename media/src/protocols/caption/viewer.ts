// The caption viewer's page (issue 25 point 8, issue 27): a video picker (failed videos with their reasons), the
// cut's detectors and whether it is degraded, the video's clips played in order in one <video> (the next clip on
// `ended`), and under it the timeline: the clip boundaries with each one's source (and confidence), the captions as
// blocks, the current position; before any caption, the list of clips and their boundaries. A click on a caption (or a clip)
// seeks the player to the right clip and offset. Every string from the data becomes a text node (dom.ts's el).
// The sound (issue 36 point 2): the video plays muted and the clip's MP3 sidecar plays in an <audio> that follows it
// (avSync.ts says what the audio does after each event of the video); where the browser cannot play a clip's format
// (playability.ts, canPlayType; or a load error) the viewer says so and offers the system player.
import type { PickerVideo, VideoViewerModel } from '../../../../src/core/protocols/caption/viewerTypes';
import { timelineTime } from '../../../../src/core/protocols/caption/viewerTime';
import type { ViewerHostMessage, ViewerRequest, ViewerState } from '../../../../src/extension/protocols/caption/viewerMessages';
import { clear, el } from '../../dom';
import { followVideo } from './avSync';
import { clipPlayability, mediaErrorNotice } from './playability';
import {
  BOUNDARY_LEGEND,
  boundaryItemText,
  boundaryText,
  cutDegradedText,
  detectorsText,
  positionText,
  secondsText,
  spanPercent,
  videoOptionText,
} from './viewerText';
import './viewer.css';

interface VsCodeApi {
  postMessage(m: ViewerRequest): void;
  /** Kept by VS Code across a reload: the panel comes back on this root and video (viewerPanel.ts). */
  setState(s: ViewerState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;
const api = acquireVsCodeApi();

const app = document.getElementById('app')!;
const picker = el('select', { id: 'video-picker', 'aria-label': 'Video' });
const rootName = el('span', { class: 'muted', id: 'root-name' });
const failed = el('ul', { id: 'failed-videos', class: 'failed' });
const player = el('video', { id: 'player', controls: true, preload: 'auto' });
/** The clip's sound: its MP3 sidecar, following the video (never shown: the video's controls drive it). */
const sound = el('audio', { id: 'player-audio', preload: 'auto' });
const notice = el('p', { id: 'play-notice', class: 'warning', role: 'status', hidden: true });
const systemPlayer = el('button', { id: 'system-player', type: 'button', hidden: true }, 'Open in system player');
const position = el('p', { id: 'position', class: 'muted' });
const timeline = el('section', { id: 'timeline', 'aria-label': 'Timeline' });
const body = el('div', { id: 'video-body' });

let model: VideoViewerModel | null = null;
let uris: (string | null)[] = [];
let sidecars: (string | null)[] = [];
let current = -1;
let seekTo: number | null = null;
let playWhenLoaded = false;
let states = new Map<string, string | null>();
let selected: string | null = null;
let shownRoot: string | null = null;
let pickerList: PickerVideo[] = [];

app.replaceChildren(
  el('header', {}, el('h1', {}, 'fpsweep: Captions'), rootName),
  el('div', { class: 'picker' }, el('label', { for: 'video-picker' }, 'Video '), picker),
  failed,
  body,
);

picker.addEventListener('change', () => api.postMessage({ type: 'pick', stem: picker.value }));
systemPlayer.addEventListener('click', () => model && current >= 0 && api.postMessage({ type: 'systemPlayer', stem: model.stem, clip: current }));

function showVideos(root: string, videos: PickerVideo[], sel: string | null): void {
  rootName.textContent = root;
  shownRoot = root;
  api.setState({ root, stem: selected ?? sel });
  const next = new Map(videos.map((v) => [v.stem, v.state]));
  // The shown video's state changed (its captions were written, it failed): read it again.
  const again = selected !== null && states.has(selected) && states.get(selected) !== next.get(selected);
  states = next;
  selected = selected ?? sel;
  pickerList = videos;
  drawPicker();
  clear(failed);
  for (const v of videos.filter((x) => x.state === 'failed'))
    failed.appendChild(el('li', {}, el('strong', {}, v.stem), `: ${v.reason ?? 'failed (no reason recorded)'}`));
  if (!videos.length) body.replaceChildren(el('p', { class: 'muted' }, 'No video directory with a segments.json in this root.'));
  if (again && selected) api.postMessage({ type: 'pick', stem: selected });
}

/** The picker's options; the video shown says what the viewer shows of it (captioned, not pending, beside its captions). */
function drawPicker(): void {
  clear(picker);
  for (const v of pickerList)
    picker.appendChild(el('option', { value: v.stem, selected: v.stem === selected }, videoOptionText(v, model?.stem === v.stem && model.captions.length > 0)));
}

function showVideo(m: VideoViewerModel, clipUris: (string | null)[], sidecarUris: (string | null)[]): void {
  model = m;
  uris = clipUris;
  sidecars = sidecarUris;
  selected = m.stem;
  drawPicker();
  picker.value = m.stem;
  if (shownRoot) api.setState({ root: shownRoot, stem: m.stem });
  current = -1;
  const problems = el('ul', { id: 'problems', class: 'error' }, ...m.problems.map((p) => el('li', {}, p)));
  const degraded = cutDegradedText(m.cut);
  body.replaceChildren(
    el(
      'section',
      { id: 'cut-info', 'aria-label': 'Cut' },
      el('p', { id: 'cut-detectors', class: 'muted' }, detectorsText(m.cut)),
      ...(degraded ? [el('p', { id: 'cut-degraded', class: 'warning', role: 'note' }, degraded)] : []),
    ),
    el('div', { class: 'player-box' }, player, sound, position, el('div', { class: 'play-notice' }, notice, systemPlayer)),
    drawTimeline(m),
    legend(),
    m.captions.length
      ? el(
          'ol',
          { id: 'caption-list' },
          ...m.captions.map((c, i) => {
            const b = el(
              'button',
              { class: 'caption-item', 'data-index': i },
              el('span', { class: 'when' }, `${secondsText(c.start)}–${secondsText(c.end)}`),
              ' ',
              c.caption,
            );
            b.addEventListener('click', () => seekCaption(i));
            return el('li', {}, b);
          }),
        )
      : el(
          'p',
          { id: 'no-captions', class: 'muted' },
          m.captioned ? 'No caption could be read.' : 'No captions yet: the clips and their boundaries from segments.json.',
        ),
    ...(m.captions.length ? [] : [boundaryList(m)]),
    problems,
  );
  const first = uris.findIndex((u) => u !== null);
  if (first >= 0) load(first, 0, false);
  drawPosition();
}

function drawTimeline(m: VideoViewerModel): HTMLElement {
  const clips = el('div', { class: 'track clips', 'aria-label': 'Clips' });
  m.clips.forEach((c, i) => {
    const b = el(
      'button',
      {
        class: `clip-block${uris[i] ? '' : ' refused'}`,
        'data-index': i,
        title: c.refused ?? boundaryItemText(c),
      },
      el('span', { class: 'boundary' }, boundaryText(c)),
      ` #${c.index}`,
    );
    place(b, c.start, c.end, m.duration);
    b.addEventListener('click', () => uris[i] && load(i, 0, false));
    clips.appendChild(b);
  });
  const captions = el('div', { class: 'track captions', 'aria-label': 'Captions' });
  m.captions.forEach((c, i) => {
    const b = el('button', { class: 'caption-block', 'data-index': i, title: `${secondsText(c.start)}–${secondsText(c.end)}: ${c.caption}` }, c.caption);
    place(b, c.start, c.end, m.duration);
    b.addEventListener('click', () => seekCaption(i));
    captions.appendChild(b);
  });
  clear(timeline);
  // The playhead first: drawn under the blocks (it shows between and above them, never across their text).
  timeline.append(el('div', { class: 'cursor', id: 'cursor', 'aria-hidden': 'true' }), clips, captions);
  return timeline;
}

/** What a clip block says, in words ("scene 0.90 #2"). */
function legend(): HTMLElement {
  return el(
    'p',
    { id: 'boundary-legend', class: 'legend' },
    'Clip blocks: the boundary that starts the clip — ',
    ...BOUNDARY_LEGEND.flatMap(([term, meaning], i) => [i ? '; ' : '', el('strong', {}, term), ` ${meaning}`]),
    '.',
  );
}

/** Each clip with its boundary's source (and confidence) and its span; a click plays the clip. */
function boundaryList(m: VideoViewerModel): HTMLElement {
  return el(
    'ol',
    { id: 'boundary-list' },
    ...m.clips.map((c, i) => {
      const b = el('button', { class: 'boundary-item', 'data-index': i, disabled: !uris[i] }, boundaryItemText(c));
      b.addEventListener('click', () => uris[i] && load(i, 0, false));
      return el('li', {}, b);
    }),
  );
}

/** Positions a block by the CSSOM (the CSP refuses style attributes, not style properties set from script). */
function place(node: HTMLElement, start: number, end: number, duration: number): void {
  const p = spanPercent(start, end, duration);
  node.style.left = `${p.left}%`;
  node.style.width = `${p.width}%`;
}

function seekCaption(i: number): void {
  const c = model?.captions[i];
  if (c && uris[c.clip]) load(c.clip, c.offset, false);
}

function load(clip: number, offset: number, play: boolean): void {
  const uri = uris[clip];
  if (!uri) return;
  if (clip === current && player.readyState >= 1) {
    player.currentTime = offset;
    if (play) void player.play().catch(() => undefined);
    return;
  }
  current = clip;
  seekTo = offset;
  playWhenLoaded = play;
  player.dataset.clip = String(clip);
  const can = clipPlayability(model?.clips[clip]?.clipPath ?? uri, (sidecars[clip] ?? null) !== null, (t) => player.canPlayType(t));
  showNotice(can.notice, can.offerSystemPlayer);
  // The sidecar is the sound where it can play; else the clip's own track (the video unmuted).
  const sidecar = can.sound === 'sidecar' ? sidecars[clip] : null;
  player.muted = sidecar !== null;
  player.dataset.sound = can.sound;
  sound.pause();
  if (sidecar) sound.src = sidecar;
  else sound.removeAttribute('src');
  sound.load();
  player.src = uri;
  drawPosition();
}

function showNotice(text: string | null, offer: boolean): void {
  notice.textContent = text ?? '';
  notice.hidden = text === null;
  systemPlayer.hidden = !offer;
}

/** Applies avSync's step after an event of the video: the audio's rate, position, play or pause. */
function follow(event: string): void {
  if (!sound.getAttribute('src')) return;
  const step = followVideo(
    { time: player.currentTime, paused: player.paused, rate: player.playbackRate, seeking: player.seeking, waiting: waiting },
    { time: sound.currentTime, paused: sound.paused, rate: sound.playbackRate, duration: sound.duration },
    event,
  );
  if (step.rate !== null) sound.playbackRate = step.rate;
  if (step.seekTo !== null) sound.currentTime = step.seekTo;
  if (step.play === true)
    void sound.play().catch((err: Error) => {
      // A browser that refuses sound before a gesture: the viewer says so rather than play silently.
      sound.dataset.refused = err.name;
      showNotice(`The sound did not start (${err.name}): press play again.`, false);
    });
  else if (step.play === false) sound.pause();
}

let waiting = false;
player.addEventListener('waiting', () => ((waiting = true), follow('waiting')));
player.addEventListener('playing', () => ((waiting = false), follow('playing')));
for (const ev of ['play', 'pause', 'seeking', 'seeked', 'ratechange', 'timeupdate', 'ended']) player.addEventListener(ev, () => follow(ev));
// The sidecar's metadata can come after the video's: place it then.
sound.addEventListener('loadedmetadata', () => follow('loadedmetadata'));
player.addEventListener('volumechange', () => (sound.volume = player.volume));
player.addEventListener('error', () => {
  const said = mediaErrorNotice(player.error?.code);
  if (said) showNotice(said, true);
});

player.addEventListener('loadedmetadata', () => {
  if (seekTo !== null && seekTo > 0) player.currentTime = seekTo;
  seekTo = null;
  if (playWhenLoaded) void player.play().catch(() => undefined);
  drawPosition();
});
player.addEventListener('ended', () => {
  // The next clip that can be played: a refused or missing one is skipped (the problems list says why).
  const next = uris.findIndex((u, i) => i > current && u !== null);
  if (next >= 0) load(next, 0, true);
});
for (const ev of ['timeupdate', 'seeked', 'emptied']) player.addEventListener(ev, () => drawPosition());

function drawPosition(): void {
  if (!model || current < 0) return;
  const t = timelineTime(model.clips, current, seekTo ?? player.currentTime);
  // The clip in the player, whose clock the player's controls show.
  const clip = model.clips[current];
  position.textContent = positionText({
    clip: current,
    clips: model.clips.length,
    clipTime: t - clip.start,
    clipDuration: clip.end - clip.start,
    time: t,
    duration: model.duration,
  });
  timeline.dataset.time = t.toFixed(3);
  const cursor = document.getElementById('cursor');
  if (cursor) cursor.style.left = `${spanPercent(t, t, model.duration).left}%`;
  for (const b of document.querySelectorAll<HTMLElement>('.caption-block, .caption-item')) {
    const c = model.captions[Number(b.dataset.index)];
    const on = !!c && c.start <= t && t < c.end;
    b.classList.toggle('current', on);
    if (on) b.setAttribute('aria-current', 'true');
    else b.removeAttribute('aria-current');
  }
  for (const b of document.querySelectorAll<HTMLElement>('.clip-block')) b.classList.toggle('current', Number(b.dataset.index) === current);
}

window.addEventListener('message', (e: MessageEvent) => {
  const m = e.data as ViewerHostMessage;
  if (m?.type === 'videos') showVideos(m.root, m.videos, m.selected);
  else if (m?.type === 'video') showVideo(m.model, m.clipUris, m.sidecarUris);
  else if (m?.type === 'error') body.replaceChildren(el('p', { class: 'error', role: 'alert' }, `${m.stem}: ${m.message}`));
});
api.postMessage({ type: 'ready' });
