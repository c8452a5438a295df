// Detector degradation (seed 004 Part I §2, "Detector degradation"): AVCut warns and disables a channel when NeMo /
// WhisperX, PySceneDetect or PANNs (or its checkpoint) is missing, and carries on; for production data that is failed
// environment validation. Two signs, both read here as pure functions: `detectors` naming a channel 'unavailable' in
// segments.json, and a warning in the cutter's output that names a detector as missing.
import { isUnavailableDetector } from '../../clips/degraded';

export const DETECTOR_CHANNELS = ['asr', 'scene', 'audio_events'] as const;
export type DetectorChannel = (typeof DETECTOR_CHANNELS)[number];

export interface Degradation {
  channel: DetectorChannel;
  /** Where it was seen: `segments.json detectors.asr = "unavailable"`, or the log line. */
  evidence: string;
}

const CHANNEL_WORDS: readonly [DetectorChannel, RegExp][] = [
  ['asr', /\b(asr|nemo|parakeet|whisperx?|speech recogni[sz]\w*)\b/i],
  ['scene', /\b(scene ?detect\w*|pyscenedetect|scene)\b/i],
  ['audio_events', /\b(panns|cnn14|audio[ _-]?events?|sound events?)\b/i],
];
const MISSING_WORDS =
  /\b(unavailable|not available|not installed|not found|missing|disabl\w*|(can ?not|could not) import|no module named|failed to (load|import)|fall\w* back)\b/i;
const WARNING_WORDS = /\b(warn\w*|error|unavailable|disabl\w*)\b/i;

/** Channels that `detectors` names as unavailable (or leaves empty). */
export function degradedDetectors(detectors: Readonly<Record<string, unknown>>): Degradation[] {
  return DETECTOR_CHANNELS.filter((c) => isUnavailableDetector(detectors[c])).map((c) => ({
    channel: c,
    evidence: `segments.json detectors.${c} = ${JSON.stringify(detectors[c] ?? null)}`,
  }));
}

/** Channels a warning line of the cutter's output names as missing (the first line per channel). */
export function degradationWarnings(log: string): Degradation[] {
  const found = new Map<DetectorChannel, string>();
  for (const raw of log.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || !WARNING_WORDS.test(line) || !MISSING_WORDS.test(line)) continue;
    for (const [channel, words] of CHANNEL_WORDS) if (!found.has(channel) && words.test(line)) found.set(channel, line.slice(0, 300));
  }
  return DETECTOR_CHANNELS.filter((c) => found.has(c)).map((c) => ({ channel: c, evidence: found.get(c)! }));
}

/** Both signs, one entry per channel (segments.json's first). */
export function degradationOf(detectors: Readonly<Record<string, unknown>> | null, log: string): Degradation[] {
  const all = [...(detectors ? degradedDetectors(detectors) : []), ...degradationWarnings(log)];
  return DETECTOR_CHANNELS.flatMap((c) => all.find((d) => d.channel === c) ?? []);
}

export const degradationText = (ds: readonly Degradation[]) => ds.map((d) => `${d.channel} unavailable (${d.evidence})`).join('; ');
