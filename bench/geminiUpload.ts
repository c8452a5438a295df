// Does a clip upload stream from disk? `npx tsx bench/geminiUpload.ts [MiB]` uploads a sparse file of MiB (default
// 512) through the caption backend's client (@google/genai's resumable upload) to the stand-in Gemini in this
// process, after a baseline upload of 8 MiB, and prints the growth of the peak resident memory of each against the
// file size: a streamed upload grows by a few chunks (8 MiB each), whatever the file's size.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { geminiApi } from '../src/core/protocols/caption/gemini/client';
import { startStandinGemini } from '../src/standins/gemini/server';

const KEY = 'bench-key-0123456789';
const MiB = 1024 * 1024;

async function main(): Promise<void> {
  const big = Number(process.argv[2] ?? 512);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gemini-upload-bench-'));
  const g = await startStandinGemini({ apiKey: KEY });
  try {
    const api = geminiApi(KEY, g.url);
    const peakMiB = () => process.resourceUsage().maxRSS / 1024;
    const upload = async (mib: number, id: string) => {
      const file = path.join(dir, `${id}.mp4`);
      fs.writeFileSync(file, '');
      fs.truncateSync(file, mib * MiB); // sparse: no disk space, all zeros
      const before = peakMiB();
      const t0 = performance.now();
      await api.upload(file, `files/${id}`, id);
      return { growth: peakMiB() - before, seconds: (performance.now() - t0) / 1000 };
    };
    const base = await upload(8, 'baseline');
    const large = await upload(big, 'large');
    process.stdout.write(
      `baseline 8 MiB: peak RSS +${base.growth.toFixed(0)} MiB in ${base.seconds.toFixed(2)} s\n` +
        `${big} MiB: peak RSS +${large.growth.toFixed(0)} MiB in ${large.seconds.toFixed(2)} s ` +
        `(${((large.growth / big) * 100).toFixed(1)}% of the file; the file is ${(big / 8).toFixed(0)}× the baseline)\n`,
    );
  } finally {
    await g.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main();
