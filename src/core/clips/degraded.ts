// A cut's degradation (SPEC-AVTIME-DATA §2): a detector channel segments.json names "unavailable" (the builtin
// cutter: asr and audio_events always), said the one way wherever a cut is shown (the tree, the caption viewer).
// No Node imports: the webview bundles it.

/**
 * A `detectors` value that says its channel did not run: 'unavailable' (SPEC §2's word), 'none' or 'disabled' (any
 * case), empty, or not a name at all. The cut's publish check (core/protocols/cut/degraded.ts) and the views read it.
 */
export function isUnavailableDetector(value: unknown): boolean {
  return typeof value !== 'string' || value.trim() === '' || /^(unavailable|none|disabled)$/i.test(value.trim());
}

/** The channels `detectors` names unavailable, in its order. */
export function unavailableDetectors(detectors: Readonly<Record<string, unknown>>): string[] {
  return Object.entries(detectors)
    .filter(([, v]) => isUnavailableDetector(v))
    .map(([k]) => k);
}

/** "degraded (no asr, audio_events)", "degraded" without named channels, or '' for a cut that is not degraded. */
export function degradedText(channels: readonly string[], degraded = channels.length > 0): string {
  if (!degraded) return '';
  return channels.length ? `degraded (no ${channels.join(', ')})` : 'degraded';
}
