// Stand-ins for the GPU frame path's tools (frames/gpu/probe.ts asks ffmpeg for its -hwaccels and runs the helper
// with --probe under PYTHON): shell scripts that answer as ffmpeg and a CUDA torch would, for tests on a host without
// either.
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';

export const HWACCELS_HEADER = 'Hardware acceleration methods:';

/** An executable `#!/bin/sh` script `dir/name` running `body`; its path. */
export function writeShellScript(dir: string, name: string, body: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return p;
}

/** An ffmpeg whose -hwaccels lists cuda (or not), between other methods. */
export function fakeFfmpeg(dir: string, cuda: boolean): string {
  const methods = cuda ? 'vdpau\\ncuda\\nvaapi' : 'vdpau\\nvaapi';
  return writeShellScript(dir, cuda ? 'ffmpeg-cuda' : 'ffmpeg-nocuda', `printf '${HWACCELS_HEADER}\\n${methods}\\n\\n'`);
}

/**
 * A Python whose helper --probe answers: CUDA torch on an H100, pillow, nvJPEG; under --serve it says it is warm (the
 * same facts) and waits for its stdin to close, making no job.
 */
export function fakeGpuPython(dir: string): string {
  const answer = { torch: '2.11.0', torchvision: '0.26.0', cuda: true, gpu: 'NVIDIA H100', nvjpeg: true, pillow: '11.3.0', errors: [] };
  const ready = { ready: true, torch: '2.11.0', pillow: '11.3.0', gpu: 'NVIDIA H100', jpeg: 'pillow', warm_s: 0 };
  return writeShellScript(
    dir,
    'python-ok',
    `case "$*" in *--serve*) echo '${JSON.stringify(ready)}'; cat > /dev/null ;; *) echo '${JSON.stringify(answer)}' ;; esac`,
  );
}
