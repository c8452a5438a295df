// A video_url for the AVTime target: a file:// URL under --allowed-local-media-path (the image
// rule of ../request.ts, shared), a file that exists, a real video container, and its streams.
import * as fs from 'node:fs/promises';
import { FFPROBE_ENTRIES, mediaFactsFromProbe, type MediaFacts } from '../../../core/serving/models/qwen3Omni/mediaFacts';
import * as msg from '../../../core/serving/vllmMessages';
import { localMediaFile, noSuchFile, pythonPurePath, RequestRefusal } from '../request';

export interface ProbedMedia {
  /** The path as the request gave it. */
  path: string;
  durationS: number;
  width: number;
  height: number;
  hasAudio: boolean;
  /** The real path the stand-in read. */
  resolved: string;
  totalFrames: number;
  fps: number;
  audio: MediaFacts['audio'];
}

const ffprobeBin = () => process.env.FFPROBE_BIN || 'ffprobe';

/** Probes by real path, valid while size and mtime are unchanged (a video is asked about more than once). */
const probed = new Map<string, { size: number; mtimeMs: number; facts: Omit<ProbedMedia, 'path'> }>();
type Probed = Omit<ProbedMedia, 'path' | 'resolved'>;

export async function loadVideo(url: string, allowedDir: string | null): Promise<ProbedMedia> {
  if (!url.startsWith('file:')) {
    if (/^https?:|^data:/.test(url)) throw new RequestRefusal(400, 'stand-in vLLM: the AVTime target takes file:// videos only');
    throw new RequestRefusal(400, msg.preprocessingMessage(msg.BAD_URL_SCHEME));
  }
  // The flag as given, never resolved (vllm/multimodal/utils.py MediaConnector.__init__).
  const { requested, resolved } = await localMediaFile(url, allowedDir ? pythonPurePath(allowedDir) : null);
  let st: Awaited<ReturnType<typeof fs.stat>>;
  try {
    st = await fs.stat(resolved);
  } catch {
    throw noSuchFile(requested);
  }
  const known = probed.get(resolved);
  if (known && known.size === st.size && known.mtimeMs === st.mtimeMs) return { path: requested, ...known.facts };
  if (!(await hasVideoSignature(resolved))) throw notAVideo();
  const facts = { ...(await probe(resolved)), resolved };
  probed.set(resolved, { size: st.size, mtimeMs: st.mtimeMs, facts });
  return { path: requested, ...facts };
}

/**
 * vLLM 0.11's OpenCV video backend (vllm/multimodal/video.py, OpenCVVideoBackend.load_bytes) fails
 * with this when the bytes are no video; chat preprocessing adds " None" (see ../../vllmMessages.ts).
 */
function notAVideo(): RequestRefusal {
  return new RequestRefusal(400, msg.preprocessingMessage('Could not open video stream'));
}

/** ISO BMFF (mp4/mov: "ftyp" at byte 4), Matroska/WebM (EBML magic) or AVI (RIFF…AVI ). */
async function hasVideoSignature(file: string): Promise<boolean> {
  const fh = await fs.open(file, 'r');
  try {
    const head = Buffer.alloc(12);
    const { bytesRead } = await fh.read(head, 0, 12, 0);
    if (bytesRead < 12) return false;
    if (head.toString('latin1', 4, 8) === 'ftyp') return true;
    if (head.readUInt32BE(0) === 0x1a45dfa3) return true;
    return head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'AVI ';
  } finally {
    await fh.close();
  }
}

async function probe(file: string): Promise<Probed> {
  const { execa } = await import('execa');
  const r = await execa(ffprobeBin(), ['-v', 'error', '-show_entries', FFPROBE_ENTRIES, '-of', 'json', file], { reject: false });
  if (r.failed) {
    if ((r as { code?: string }).code === 'ENOENT') throw new Error(`stand-in vLLM: ${ffprobeBin()} not found (install ffmpeg or set FFPROBE_BIN)`);
    throw notAVideo();
  }
  let f: MediaFacts;
  let json: { format?: { duration?: string } };
  try {
    json = JSON.parse(r.stdout);
    f = mediaFactsFromProbe(json, file);
  } catch {
    throw notAVideo();
  }
  const durationS = Number(json.format?.duration ?? f.totalFrames / f.fps);
  return { durationS, width: f.width, height: f.height, hasAudio: f.audio !== null, totalFrames: f.totalFrames, fps: f.fps, audio: f.audio };
}
