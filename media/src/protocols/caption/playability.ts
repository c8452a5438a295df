// What this browser can play of a clip (issue 36 point 2), asked of HTMLMediaElement.canPlayType with the types the
// cut writes (SPEC-AVTIME-DATA §2: H.264 + AAC in the MP4, an MP3 sidecar). VS Code's Electron has H.264 and MP3 but
// no AAC (microsoft/vscode#156558, #158972); code-server's Chromium has all three. Pure: the viewer passes
// canPlayType in, and shows the notice and the "Open in system player" button when one is due.

/** HTMLMediaElement.canPlayType: '' (cannot), 'maybe' or 'probably'. */
export type CanPlayType = (type: string) => string;

/** The clip's video stream (libx264's default High profile) and the MP4's own audio (AAC-LC). */
const H264 = 'avc1.640028';
const AAC = 'mp4a.40.2';
const VIDEO_TYPES: Record<string, { type: string; name: string; track: string | null }> = {
  mp4: { type: `video/mp4; codecs="${H264}"`, name: 'H.264 video in MP4', track: `video/mp4; codecs="${H264}, ${AAC}"` },
  m4v: { type: `video/mp4; codecs="${H264}"`, name: 'H.264 video in MP4', track: `video/mp4; codecs="${H264}, ${AAC}"` },
  webm: { type: 'video/webm; codecs="vp8"', name: 'VP8 video in WebM', track: 'video/webm; codecs="vp8, vorbis"' },
};
export const SIDECAR_TYPE = 'audio/mpeg';

export interface ClipPlayability {
  /** The picture can play here. */
  video: boolean;
  /** Where the sound comes from: the MP3 sidecar (the video muted), the clip's own track, or nowhere. */
  sound: 'sidecar' | 'track' | 'none';
  /** What the viewer says (null: all plays); `offerSystemPlayer` when the clip should go to the OS's player. */
  notice: string | null;
  offerSystemPlayer: boolean;
}

const extOf = (p: string) => /\.([^./]+)$/.exec(p)?.[1]?.toLowerCase() ?? '';

export function clipPlayability(clipPath: string, hasSidecar: boolean, canPlay: CanPlayType): ClipPlayability {
  const kind = VIDEO_TYPES[extOf(clipPath)];
  const video = kind !== undefined && canPlay(kind.type) !== '';
  const sidecar = hasSidecar && canPlay(SIDECAR_TYPE) !== '';
  const track = kind?.track !== undefined && kind.track !== null && canPlay(kind.track) !== '';
  const sound = sidecar ? 'sidecar' : track ? 'track' : 'none';
  if (!video) {
    const what = kind ? kind.name : `a .${extOf(clipPath) || '?'} file`;
    const said = `This view cannot play ${what} (the browser's canPlayType says no): open the clip in the system player.`;
    return { video, sound, notice: said, offerSystemPlayer: true };
  }
  if (sound === 'none') {
    const why = hasSidecar
      ? "it plays no MP3 (the sidecar) and no AAC (the clip's own track)"
      : "the clip has no MP3 sidecar and this view plays no AAC (the clip's own track)";
    return { video, sound, notice: `No sound here: ${why}. The system player plays both.`, offerSystemPlayer: true };
  }
  if (hasSidecar && sound === 'track') return { video, sound, notice: "This view plays no MP3: the sound is the clip's own track.", offerSystemPlayer: false };
  return { video, sound, notice: null, offerSystemPlayer: false };
}

/** The notice for a clip the browser refused while loading it (MediaError code 4: source not supported), or null. */
export function mediaErrorNotice(code: number | undefined): string | null {
  // MediaError: 1 aborted, 2 network, 3 decode, 4 source not supported.
  if (code === 4) return 'This view cannot play this clip (the browser refused its format): open it in the system player.';
  if (code === 3) return 'The clip could not be decoded here: open it in the system player.';
  return null;
}
