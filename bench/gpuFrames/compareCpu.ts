// The GPU path's JPEGs against the CPU path's, from what a device run brought back (bench/gpuFrames/device_bench.py's
// sample phase: NVDEC's NV12 for 8 frames of each class, and the GPU path's JPEGs of them at every size):
//   npx tsx bench/gpuFrames/compareCpu.ts DIR            (DIR: frames_v720.nv12, frames_v480.nv12, gpu_jpegs.tar)
// The CPU path here is the product's own: ffmpeg's yuv420p → rgb24 (as ffmpegDecode.ts asks), then jpeg.ts's sharp
// pipeline (Lanczos-3, q85, 4:2:0, baseline). Both JPEGs are decoded by sharp and compared: PSNR over RGB (dB), and
// the largest pixel difference. Each GPU JPEG's markers are checked against the SPEC too (baseline SOF0, 4:2:0,
// IJG q85 tables, the planned size). NVDEC's frames equal the CPU decode's (the device run's `equal` phase checks
// every frame's MD5), so the NV12 stands for the CPU decode here.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import sharp from 'sharp';
import { jpegPipeline } from '../../src/core/protocols/fp/frames/jpeg';
import { checkSpecJpeg } from '../../src/core/protocols/fp/frames/jpegSpec';

const CLASSES = [
  { name: 'v720', width: 1280, height: 720 },
  { name: 'v480', width: 854, height: 480 },
];

async function rgbOf(jpeg: Buffer): Promise<Buffer> {
  return sharp(jpeg).removeAlpha().raw().toBuffer();
}

function psnr(a: Buffer, b: Buffer): { psnr: number; maxDiff: number } {
  let se = 0;
  let maxDiff = 0;
  for (let i = 0; i < a.length; i++) {
    const d = a[i] - b[i];
    se += d * d;
    if (Math.abs(d) > maxDiff) maxDiff = Math.abs(d);
  }
  const mse = se / a.length;
  return { psnr: mse === 0 ? Infinity : 10 * Math.log10((255 * 255) / mse), maxDiff };
}

async function main(): Promise<void> {
  const dir = process.argv[2];
  if (!dir) throw new Error('usage: compareCpu.ts DIR');
  const work = mkdtempSync(path.join(os.tmpdir(), 'fpsweep-gpucompare-'));
  try {
    execFileSync('tar', ['-xf', path.join(dir, 'gpu_jpegs.tar'), '-C', work]);
    for (const c of CLASSES) {
      const rgbAll = execFileSync(
        process.env.FFMPEG_BIN ?? 'ffmpeg',
        [
          '-hide_banner',
          '-loglevel',
          'error',
          '-f',
          'rawvideo',
          '-pix_fmt',
          'nv12',
          '-s',
          `${c.width}x${c.height}`,
          '-i',
          path.join(dir, `frames_${c.name}.nv12`),
          '-vf',
          'format=yuv420p',
          '-f',
          'rawvideo',
          '-pix_fmt',
          'rgb24',
          '-',
        ],
        { maxBuffer: 1 << 30 },
      );
      const frameBytes = c.width * c.height * 3;
      const files = readdirSync(path.join(work, c.name)).filter((f) => f.endsWith('.jpg'));
      const indices = [...new Set(files.map((f) => Number(f.split('_')[0])))].sort((a, b) => a - b);
      const bySize = new Map<string, { psnr: number[]; maxDiff: number; bytesGpu: number; bytesCpu: number }>();
      let specFailures = 0;
      for (const f of files) {
        const [idx, dims] = f.replace('.jpg', '').split('_');
        const [w, h] = dims.split('x').map(Number);
        const k = indices.indexOf(Number(idx));
        const rgb = rgbAll.subarray(k * frameBytes, (k + 1) * frameBytes);
        const gpu = readFileSync(path.join(work, c.name, f));
        const problems = checkSpecJpeg(gpu, { width: w, height: h });
        if (problems.length) {
          specFailures++;
          console.log(`  ${c.name}/${f}: ${problems.join('; ')}`);
        }
        const cpu = await jpegPipeline(rgb, { width: c.width, height: c.height }, { width: w, height: h }).toBuffer();
        const p = psnr(await rgbOf(gpu), await rgbOf(cpu));
        const s = bySize.get(dims) ?? { psnr: [], maxDiff: 0, bytesGpu: 0, bytesCpu: 0 };
        s.psnr.push(p.psnr);
        s.maxDiff = Math.max(s.maxDiff, p.maxDiff);
        s.bytesGpu += gpu.length;
        s.bytesCpu += cpu.length;
        bySize.set(dims, s);
      }
      console.log(`${c.name}: ${files.length} GPU JPEGs of frames ${indices.join(',')}; SPEC check failures: ${specFailures}`);
      for (const [dims, s] of [...bySize].sort()) {
        const mean = s.psnr.reduce((a, b) => a + b, 0) / s.psnr.length;
        console.log(
          `  ${dims.padEnd(9)} PSNR GPU vs CPU path: mean ${mean.toFixed(2)} dB, min ${Math.min(...s.psnr).toFixed(2)} dB; max |diff| ${s.maxDiff}; ` +
            `bytes GPU/CPU ${(s.bytesGpu / s.bytesCpu).toFixed(3)}`,
        );
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
