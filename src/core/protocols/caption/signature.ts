// When a captioned video is done (SPEC-AVTIME-DATA §3, Resume): its captions_merged.json exists and its recorded
// signature matches — sha256 of segments.json plus each clip's and sidecar's size and mtime, the model, the prompt's
// sha256 and the decoding. Beyond the seed, whose signature misses changed clip media. Pure over the facts given.
import { createHash } from 'node:crypto';

export interface ClipFileStamp {
  /** Relative to the video directory, as segments.json names it. */
  path: string;
  size: number;
  /** Nanoseconds, as a decimal string (fs.stat with bigint: no precision lost). */
  mtimeNs: string;
}

export interface CaptionSignatureInput {
  segmentsSha256: string;
  /** Every clip and its sidecar, in segments.json's order. */
  media: readonly ClipFileStamp[];
  model: string;
  promptSha256: string;
  /** The request's decoding and frame sampling, as sent. */
  decoding: Readonly<Record<string, number | string | boolean>>;
  /** A backend other than vLLM and its normalizer (issue 35); absent for vLLM, so the signatures of roots
   * captioned before stay what they were. */
  backend?: { name: string; normalizer: string };
}

/** A canonical JSON (keys sorted) of the input, hashed: equal inputs give equal signatures on any machine. */
export function captionSignature(input: CaptionSignatureInput): string {
  const decoding = Object.fromEntries(Object.entries(input.decoding).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const canonical = JSON.stringify({
    v: 1,
    segments: input.segmentsSha256,
    media: input.media.map((m) => [m.path, m.size, m.mtimeNs]),
    model: input.model,
    prompt: input.promptSha256,
    decoding,
    ...(input.backend ? { backend: input.backend.name, normalizer: input.backend.normalizer } : {}),
  });
  return createHash('sha256').update(canonical).digest('hex');
}
