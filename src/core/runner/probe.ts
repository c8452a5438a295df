// Runs a probe command (nvidia-smi, vllm --version, ffmpeg -version) with a timeout; never throws.
// execa 9 is ESM-only: a dynamic import loads it natively under tsx and in the esbuild bundle.
const loadExeca = () => import('execa').then((m) => m.execa);

export interface ProbeResult {
  ok: boolean;
  stdout: string;
  stderr: string;
  /** The executable was not found. */
  missing: boolean;
  message: string;
}

export async function probe(cmd: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 30_000): Promise<ProbeResult> {
  try {
    const execa = await loadExeca();
    const r = await execa(cmd, args, { env, extendEnv: false, timeout: timeoutMs, reject: false, stdin: 'ignore' });
    const stdout = String(r.stdout ?? '');
    const stderr = String(r.stderr ?? '');
    const missing = (r as { code?: string }).code === 'ENOENT';
    if (r.timedOut) return { ok: false, stdout, stderr, missing: false, message: `${cmd} did not answer within ${timeoutMs / 1000} s` };
    if (missing) return { ok: false, stdout, stderr, missing: true, message: `${cmd} not found` };
    if (r.exitCode !== 0)
      return {
        ok: false,
        stdout,
        stderr,
        missing: false,
        message: `${cmd} ${args.join(' ')} exited with ${r.exitCode}: ${(stderr || stdout).trim().split('\n').slice(-2).join(' ')}`,
      };
    return { ok: true, stdout, stderr, missing: false, message: '' };
  } catch (err) {
    return { ok: false, stdout: '', stderr: '', missing: false, message: `${cmd}: ${(err as Error).message}` };
  }
}
