// Condition names (SPEC §2): `v_blind | v_<N> | v_<N>_s<S> | v_fps<F>_s<S>`. Parsed, not listed, so a new
// ladder step needs no code change.
import { InputError } from '../../../errors';
import { MAX_IMAGES } from './constants';

export type Condition =
  | { name: string; kind: 'blind' }
  | { name: string; kind: 'count'; nFrames: number; shortSide: number | null }
  | { name: string; kind: 'fps'; fps: number; shortSide: number };

export const BASE_CONDITIONS = ['v_blind', 'v_1', 'v_32', 'v_32_s224', 'v_32_s448'] as const;
export const NEW_CONDITIONS = ['v_32_s168', 'v_32_s336', 'v_8_s224', 'v_128_s224', 'v_fps0.25_s224', 'v_fps0.5_s224', 'v_fps1_s224', 'v_fps2_s224'] as const;
/** The task-11 default: the 8 new conditions plus the 5 base ones (done base rows are skipped). */
export const DEFAULT_CONDITIONS: readonly string[] = [...NEW_CONDITIONS, ...BASE_CONDITIONS];
export const PILOT_BENCHMARKS: readonly string[] = ['MVBench', 'LVBench', 'TimeScope'];

const COUNT_RE = /^v_([1-9][0-9]*)(?:_s([1-9][0-9]*))?$/;
const FPS_RE = /^v_fps((?:0|[1-9][0-9]*)(?:\.[0-9]*[1-9])?)_s([1-9][0-9]*)$/;

export function parseCondition(name: string): Condition {
  if (name === 'v_blind') return { name, kind: 'blind' };
  const count = COUNT_RE.exec(name);
  if (count) {
    const nFrames = Number(count[1]);
    if (nFrames > MAX_IMAGES) throw new InputError(`condition '${name}': ${nFrames} frames exceeds the ${MAX_IMAGES}-image limit`);
    return { name, kind: 'count', nFrames, shortSide: count[2] === undefined ? null : Number(count[2]) };
  }
  const fps = FPS_RE.exec(name);
  if (fps) {
    const rate = Number(fps[1]);
    if (!(rate > 0)) throw new InputError(`condition '${name}': the frame rate must be > 0`);
    return { name, kind: 'fps', fps: rate, shortSide: Number(fps[2]) };
  }
  throw new InputError(`'${name}' is not a condition name; expected v_blind, v_<N>, v_<N>_s<S> or v_fps<F>_s<S> (e.g. v_32_s224, v_fps0.5_s224)`);
}

/** Parses a list, reporting every bad name at once and dropping repeats (first wins). */
export function parseConditions(names: readonly string[]): Condition[] {
  const bad: string[] = [];
  const out: Condition[] = [];
  const seen = new Set<string>();
  for (const n of names) {
    try {
      if (!seen.has(n)) out.push(parseCondition(n));
      seen.add(n);
    } catch (err) {
      bad.push((err as Error).message);
    }
  }
  if (bad.length) throw new InputError(bad.join('\n'));
  return out;
}
