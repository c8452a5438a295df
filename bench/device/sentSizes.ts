// Every frame size the protocol sends, for checking qwenTokens against transformers (bench/device/qwen_tokens_transformers.py):
//   npx tsx bench/device/sentSizes.ts OUT.json
// Sizes = resizeDims (SPEC §2.3) of each stored size under each short side: the ladder's 168/224/336/448,
// other steps a condition name may ask for (v_<N>_s<S>), and storage. Stored sizes: short side 720 or 480
// (SPEC §1), long side from the short side to 3× it, both orientations; plus the sample package's sizes.
import { promises as fs } from 'node:fs';
import { resizeDims } from '../../src/core/protocols/fp/rules/resize';
import { planSample } from '../../src/core/protocols/fp/sample';

export const SHORT_SIDES: ReadonlyArray<number | null> = [null, 112, 140, 168, 196, 224, 252, 280, 336, 392, 448, 504, 560, 672];

export function storedSizes(): Array<[number, number]> {
  const sizes: Array<[number, number]> = [];
  for (const short of [720, 480]) {
    for (let long = short; long <= 3 * short; long++) sizes.push([long, short], [short, long]);
  }
  for (const v of planSample(1).videos) sizes.push([v.width, v.height]);
  return sizes;
}

export function sentSizes(): Array<[number, number]> {
  const seen = new Set<string>();
  const out: Array<[number, number]> = [];
  for (const [w, h] of storedSizes()) {
    for (const s of SHORT_SIDES) {
      const d = resizeDims(w, h, s);
      const key = `${d.width}x${d.height}`;
      if (!seen.has(key)) {
        seen.add(key);
        out.push([d.width, d.height]);
      }
    }
  }
  return out.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

if (require.main === module) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: npx tsx bench/device/sentSizes.ts OUT.json');
  const sizes = sentSizes();
  void fs
    .writeFile(file, JSON.stringify({ what: 'frame sizes the protocol sends, [width, height]', sizes }))
    .then(() => console.log(`${sizes.length} sent sizes → ${file}`));
}
