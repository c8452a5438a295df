// An audio_url for the caption role: a file:// URL under --allowed-local-media-path (the rule of ../request.ts,
// shared with images and videos), a file that exists, and an audio stream with its sample count and rate (what the
// processor's audio placeholder count depends on, ../../../core/serving/models/qwen3Omni/counts.ts).
// The words for an undecodable file are from vllm/multimodal/media/audio.py as read after v0.18.0 ("Invalid or
// unsupported audio file.", "No audio stream found."); v0.18.0's own loader (librosa + PyAV, #36319) was not read.
import * as fs from 'node:fs/promises';
import * as msg from '../../../core/serving/vllmMessages';
import { localMediaFile, noSuchFile, pythonPurePath, RequestRefusal } from '../request';

export interface ProbedAudio {
  path: string;
  resolved: string;
  sampleRate: number;
  samples: number;
}

const probed = new Map<string, { size: number; mtimeMs: number; facts: Omit<ProbedAudio, 'path' | 'resolved'> }>();

export async function loadAudio(url: string, allowedDir: string | null): Promise<ProbedAudio> {
  if (!url.startsWith('file:')) {
    if (/^https?:|^data:/.test(url)) throw new RequestRefusal(400, 'stand-in vLLM: the caption role takes file:// audio only');
    throw new RequestRefusal(400, msg.preprocessingMessage(msg.BAD_URL_SCHEME));
  }
  const { requested, resolved } = await localMediaFile(url, allowedDir ? pythonPurePath(allowedDir) : null);
  const st = await fs.stat(resolved).catch(() => null);
  if (!st) throw noSuchFile(requested);
  const known = probed.get(resolved);
  if (known && known.size === st.size && known.mtimeMs === st.mtimeMs) return { path: requested, resolved, ...known.facts };
  const facts = await probeAudio(resolved);
  probed.set(resolved, { size: st.size, mtimeMs: st.mtimeMs, facts });
  return { path: requested, resolved, ...facts };
}

async function probeAudio(file: string): Promise<Omit<ProbedAudio, 'path' | 'resolved'>> {
  const { execa } = await import('execa');
  const bin = process.env.FFPROBE_BIN || 'ffprobe';
  const entries = 'stream=codec_type,sample_rate,duration:format=duration';
  const r = await execa(bin, ['-v', 'error', '-show_entries', entries, '-of', 'json', file], { reject: false });
  if ((r as { code?: string }).code === 'ENOENT') throw new Error(`stand-in vLLM: ${bin} not found (install ffmpeg or set FFPROBE_BIN)`);
  const invalid = new RequestRefusal(400, msg.preprocessingMessage('Invalid or unsupported audio file.'));
  if (r.failed) throw invalid;
  let json: { streams?: Array<{ codec_type?: string; sample_rate?: string; duration?: string }>; format?: { duration?: string } };
  try {
    json = JSON.parse(r.stdout);
  } catch {
    throw invalid;
  }
  const a = json.streams?.find((s) => s.codec_type === 'audio');
  if (!a) throw new RequestRefusal(400, msg.preprocessingMessage('No audio stream found.'));
  const sampleRate = Number(a.sample_rate);
  const samples = Math.round(Number(a.duration ?? json.format?.duration) * sampleRate);
  if (!(sampleRate > 0) || !(samples > 0)) throw invalid;
  return { sampleRate, samples };
}
