// Planted effects for the findings demo (issue 19): four extra sample benchmarks whose answers the stand-in
// vLLM decides from the request's condition signature (frame count, short side of the frames) and the item,
// so that `fpsweep findings` shows each verdict where it was planted:
//   PlantedPixels  accuracy rises with the short side (168 px → 448 px), not with the frame count → pixels
//   PlantedFrames  accuracy rises with the frame count (8 → 128), not with the short side          → frames
//   PlantedBlind   the same high accuracy with or without frames                                    → blind-solvable
//   PlantedNull    the same accuracy at every video condition, chance without frames                → neither
// An item has a fixed level u in [0, 1) (a hash of its number); it is answered right when u is below the
// condition's rate (one threshold per item: more pixels or frames never turn a right answer wrong). Without
// frames a planted item is guessed (chance), except in PlantedBlind. The question carries the tag
// `[planted <effect> #<n>]`, from which the stand-in finds the effect and the correct option (plantedQuestion).
import { createHash } from 'node:crypto';

export const PLANTED_EFFECTS = ['pixels', 'frames', 'blind', 'null'] as const;
export type PlantedEffect = (typeof PLANTED_EFFECTS)[number];
export const PLANTED_BENCHMARK: Record<PlantedEffect, string> = {
  pixels: 'PlantedPixels',
  frames: 'PlantedFrames',
  blind: 'PlantedBlind',
  null: 'PlantedNull',
};
/** Videos shared by the four planted benchmarks, and questions per video per benchmark: 12 × 10 = 120 items (≥ 100 pairs). */
export const PLANTED_VIDEOS = 12;
export const PLANTED_QUESTIONS_PER_VIDEO = 10;

const COLOURS = ['red', 'green', 'blue', 'yellow', 'purple', 'orange', 'white', 'black'];
const TAG_RE = /^Question: \[planted (pixels|frames|blind|null) #([0-9]+)\]/m;

/** Uniform in [0, 1) from a string (sha256). */
function unit(s: string): number {
  return createHash('sha256').update(s).digest().readUInt32BE(0) / 4294967296;
}

/** The n-th planted question of an effect; the correct option is the first. */
export function plantedQuestion(effect: PlantedEffect, n: number): { question: string; options: string[] } {
  const start = Math.floor(unit(`colour/${effect}/${n}`) * COLOURS.length);
  const options = [0, 1, 2, 3].map((k) => COLOURS[(start + 3 * k) % COLOURS.length]);
  return { question: `[planted ${effect} #${n}] Which colour is the marker in the clip?`, options };
}

/** The rate at which an item is right under a condition's signature (frames sent, short side of the frames). */
export function plantedRate(effect: PlantedEffect, nImages: number, shortSide: number): number | null {
  if (effect === 'blind') return 0.8;
  if (nImages === 0) return null; // guessed
  if (effect === 'null') return 0.55;
  if (effect === 'pixels') return shortSide <= 168 ? 0.35 : shortSide <= 224 ? 0.5 : shortSide <= 336 ? 0.65 : 0.85;
  return nImages <= 1 ? 0.3 : nImages <= 8 ? 0.35 : nImages <= 32 ? 0.55 : 0.85;
}

/**
 * The stand-in's reply to a planted item, or null for any other prompt. Deterministic: the same prompt and
 * frame dims give the same reply.
 */
export function plantedReply(promptText: string, dims: readonly { width: number; height: number }[]): string | null {
  const tag = TAG_RE.exec(promptText);
  if (!tag) return null;
  const effect = tag[1] as PlantedEffect;
  const n = Number(tag[2]);
  const letters = [...promptText.matchAll(/^\(([A-Z])\) (.*)$/gm)].map((m) => ({ letter: m[1], text: m[2] }));
  const right = letters.find((o) => o.text === plantedQuestion(effect, n).options[0]);
  if (!right || letters.length < 2) return null;
  const shortSide = dims.length ? Math.min(dims[0].width, dims[0].height) : 0;
  const rate = plantedRate(effect, dims.length, shortSide);
  const u = unit(`level/${effect}/${n}`);
  const wrong = letters.filter((o) => o !== right);
  let letter: string;
  if (rate === null) letter = letters[Math.floor(unit(`guess/${promptText}`) * letters.length)].letter;
  else letter = u < rate ? right.letter : wrong[n % wrong.length].letter;
  const form = n % 3;
  return form === 0 ? letter : form === 1 ? `(${letter})` : `The answer is ${letter}.`;
}
