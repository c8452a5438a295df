// `fpsweep doctor`'s report: every run type's lines (its `doctor` hook), in the registry's order, asked at once
// and sharing one vLLM version asker, so an executable that several run types name is asked once.
import type { DoctorLine, DoctorReport } from './schema';
import { vllmVersionAsker, type VllmVersionAsker } from './tools';

/** What `fpsweep doctor` gives each run type's hook (RunProtocol.doctor); the machine facts are there for tests to set. */
export interface DoctorHookOptions {
  /** Environment for the probes (PATH, the run types' *_BIN and knobs). */
  env: NodeJS.ProcessEnv;
  /** Asks an executable's vLLM version once per doctor run, whichever run types name it. */
  vllmVersion: VllmVersionAsker;
  cores?: number;
  freeBytes?: (dir: string) => Promise<number>;
  /** Host memory (default os.totalmem()). */
  ramBytes?: number;
}

/** A run type as doctor sees it: its hook, if it has one. */
export interface DoctorSubject {
  doctor?(root: string | null, opts: DoctorHookOptions): Promise<DoctorLine[]>;
}

export async function doctorReport(
  protocols: readonly DoctorSubject[],
  root: string | null,
  opts: Omit<DoctorHookOptions, 'vllmVersion'> & { vllmVersion?: DoctorHookOptions['vllmVersion'] },
): Promise<DoctorReport> {
  const hookOpts: DoctorHookOptions = { ...opts, vllmVersion: opts.vllmVersion ?? vllmVersionAsker(opts.env) };
  const perType = await Promise.all(protocols.map((p) => p.doctor?.(root, hookOpts) ?? Promise.resolve([])));
  const lines = perType.flat();
  return { packageDir: root, lines, ok: lines.every((l) => l.status !== 'fail') };
}

export function formatDoctor(r: DoctorReport): string {
  const tag = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' } as const;
  const out: string[] = [];
  for (const l of r.lines) {
    out.push(`${tag[l.status]}  ${l.title}: ${l.detail}`);
    if (l.action) out.push(`      → ${l.action}`);
  }
  const n = (s: DoctorLine['status']) => r.lines.filter((l) => l.status === s).length;
  out.push(`${n('ok')} ok, ${n('warn')} warn, ${n('fail')} fail${r.ok ? '' : ' — fix the failures before the run'}`);
  return out.join('\n');
}
