// The verdict of one benchmark (issue 19), pure. In this order:
//   pending         pixels, frames or video has fewer than MIN_PAIRS pairs (the verdict reads only these three;
//                   temporal is shown, never decides);
//   blind-solvable  v_blind's Wilson lower bound is above chance, and video is not significant (McNemar p ≥ α) or
//                   its Δ is below δ;
//   pixels / frames / both   each of the two contrasts with q < α and Δ ≥ δ;
//   hurts           pixels or frames with q < α and Δ < 0;
//   neither         both 90 % intervals inside ±δ (two one-sided tests at 5 % each, on the cluster-robust SE), each
//                   from at least MIN_TOST_CLUSTERS videos;
//   inconclusive    anything else; `why` gives the detectable effects.
import type { Cell, Contrast, ContrastName, Verdict } from './types';
import { ALPHA, MIN_PAIRS, MIN_TOST_CLUSTERS } from './types';

const pts = (x: number | null, digits = 1) => (x === null ? '—' : x.toFixed(digits));
const signed = (x: number | null) => (x === null ? '—' : `${x >= 0 ? '+' : ''}${x.toFixed(1)}`);
export const fmtP = (p: number | null) => (p === null ? '—' : p < 1e-4 ? p.toExponential(1) : p.toPrecision(2));

function describe(name: ContrastName, c: Contrast): string {
  const q = c.q === null ? `p ${fmtP(c.p)}` : `q ${fmtP(c.q)}`;
  return `${name} Δ ${signed(c.delta)} [${pts(c.lo)}, ${pts(c.hi)}] (${q}, ${c.n} pairs)`;
}

export interface VerdictInput {
  contrasts: Record<ContrastName, Contrast>;
  blind: Cell | undefined;
  /** Points, or null when unknown. */
  chance: number | null;
  deltaPts: number;
}

export function decideVerdict(v: VerdictInput): { verdict: Verdict; why: string } {
  const { contrasts: k, deltaPts: d } = v;
  const short = (['pixels', 'frames', 'video'] as const).filter((n) => k[n].n < MIN_PAIRS);
  if (short.length) {
    return { verdict: 'pending', why: `${short.map((n) => `${n} has ${k[n].n} of the ${MIN_PAIRS} pairs needed`).join('; ')}` };
  }
  const blind = v.blind;
  if (blind && blind.lo !== null && v.chance !== null && blind.lo > v.chance) {
    const video = k.video;
    const notSig = video.p !== null && video.p >= ALPHA;
    const small = video.delta !== null && video.delta < d;
    if (notSig || small) {
      return {
        verdict: 'blind-solvable',
        why:
          `v_blind ${pts(blind.acc)} % (Wilson ${pts(blind.lo)}–${pts(blind.hi)}) is above chance ${pts(v.chance)} %, ` +
          `and the video adds ${notSig ? 'nothing significant' : `less than δ = ${d}`}: ${describe('video', video)}`,
      };
    }
  }
  const sigUp = (['pixels', 'frames'] as const).filter((n) => k[n].q !== null && k[n].q! < ALPHA && k[n].delta !== null && k[n].delta! >= d);
  if (sigUp.length) {
    const verdict: Verdict = sigUp.length === 2 ? 'both' : sigUp[0];
    return { verdict, why: `${sigUp.map((n) => describe(n, k[n])).join('; ')}: q < ${ALPHA} and Δ ≥ δ = ${d}` };
  }
  const sigDown = (['pixels', 'frames'] as const).filter((n) => k[n].q !== null && k[n].q! < ALPHA && k[n].delta !== null && k[n].delta! < 0);
  if (sigDown.length) {
    return { verdict: 'hurts', why: `${sigDown.map((n) => describe(n, k[n])).join('; ')}: significantly worse with more ${sigDown.join(' and ')}` };
  }
  const inside = (c: Contrast) => c.lo90 !== null && c.lo90 !== undefined && c.hi90 !== null && c.hi90 !== undefined && c.lo90 > -d && c.hi90 < d;
  const fewVideos = (['pixels', 'frames'] as const).filter((n) => (k[n].clusters ?? 0) < MIN_TOST_CLUSTERS);
  if (inside(k.pixels) && inside(k.frames) && fewVideos.length) {
    return {
      verdict: 'inconclusive',
      why:
        `both 90 % intervals lie inside ±δ = ±${d}, but ${fewVideos.map((n) => `${n} has ${k[n].clusters ?? 0} video(s)`).join(' and ')}: ` +
        `fewer than ${MIN_TOST_CLUSTERS} videos cannot show equivalence (the cluster-robust interval is too narrow)`,
    };
  }
  if (inside(k.pixels) && inside(k.frames)) {
    return {
      verdict: 'neither',
      why:
        `both 90 % intervals lie inside ±δ = ±${d} (TOST): pixels [${pts(k.pixels.lo90 ?? null)}, ${pts(k.pixels.hi90 ?? null)}], ` +
        `frames [${pts(k.frames.lo90 ?? null)}, ${pts(k.frames.hi90 ?? null)}]`,
    };
  }
  return {
    verdict: 'inconclusive',
    why:
      `${describe('pixels', k.pixels)}; ${describe('frames', k.frames)}; neither significant with Δ ≥ ${d} nor shown within ±${d}; ` +
      `detectable at 80 % power: pixels ${pts(k.pixels.mde)}, frames ${pts(k.frames.mde)} points`,
  };
}
