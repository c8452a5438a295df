// What a row says about its video (SPEC-AVTIME-DATA §1, used by §4 too): the video reference and the duration.
import type { SourceRow } from './rowSchema';

/** `metadata.input_video` when a non-empty string, else `videos[0]` when a non-empty string, else null. */
export function videoRef(row: SourceRow): string | null {
  const iv = row.metadata?.input_video;
  if (typeof iv === 'string' && iv !== '') return iv;
  const v0 = row.videos?.[0];
  return typeof v0 === 'string' && v0 !== '' ? v0 : null;
}

export type Duration = { ok: true; ms: number } | { ok: false; why: string };

/**
 * Whole milliseconds: `duration_ms` when present, else `duration_sec`·1000, rounded half up [decided: the outputs
 * carry integer ms]; the first field present decides (a present but bad value is not passed over for the other).
 */
export function durationMs(row: SourceRow): Duration {
  const md = row.metadata;
  const [field, value] =
    md?.duration_ms !== undefined && md.duration_ms !== null
      ? ['duration_ms', md.duration_ms]
      : ['duration_sec', md?.duration_sec === undefined || md.duration_sec === null ? null : md.duration_sec * 1000];
  if (value === null) return { ok: false, why: 'metadata.duration_ms and metadata.duration_sec are both missing' };
  const ms = Math.floor(value + 0.5);
  if (!Number.isFinite(ms) || ms <= 0 || !Number.isSafeInteger(ms))
    return { ok: false, why: `metadata.${field} gives ${value} ms; expected a positive duration` };
  return { ok: true, ms };
}
