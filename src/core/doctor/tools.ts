// vLLM executables against the pins the run types give (one line per check), and ffmpeg.
import type { DoctorLine } from './schema';
import { probe } from '../runner/probe';
import { describePin, pinAccepts, type VllmPin } from '../serving/vllmVersion';
import { vllmVersionOf } from '../serving/serverProbe';

export interface VllmCheck {
  id: string;
  /** The executable; its environment variable when set, else `vllm`. */
  bin: string;
  /** Where the bin came from, for the action line ("VLLM_BIN", "--target-vllm-bin / TARGET_VLLM_BIN"). */
  binFrom: string;
  pin: VllmPin;
  /** A missing executable: fail for the FP sweep (the default run type), warn for the others. */
  missing: 'fail' | 'warn';
  /** How to install a release of the pin. */
  install: string;
  /** What to install when the executable is missing (the action's first part). */
  installMissing: string;
}

/** An executable's vLLM version, as doctor asks it: each executable once, however many run types name it. */
export type VllmVersionAsker = (bin: string) => ReturnType<typeof vllmVersionOf>;

/** Asks `vllmVersionOf` once per executable (one doctor run shares it between the run types' hooks). */
export function vllmVersionAsker(env: NodeJS.ProcessEnv): VllmVersionAsker {
  const asked = new Map<string, ReturnType<typeof vllmVersionOf>>();
  return (bin) => {
    if (!asked.has(bin)) asked.set(bin, vllmVersionOf(bin, env));
    return asked.get(bin)!;
  };
}

/** One line per check, each against its own pin. */
export async function checkVllms(checks: readonly VllmCheck[], ask: VllmVersionAsker): Promise<DoctorLine[]> {
  return Promise.all(checks.map(async (c) => vllmLine(c, await ask(c.bin))));
}

function vllmLine(c: VllmCheck, found: Awaited<ReturnType<typeof vllmVersionOf>>): DoctorLine {
  const pin = describePin(c.pin);
  const base = { id: c.id, title: `vLLM for the ${c.pin.runType} (pin ${pin})` };
  const install = c.install;
  if ('error' in found) {
    return {
      ...base,
      status: c.missing,
      detail: found.error,
      action: `${c.installMissing}, or point ${c.binFrom} at the vllm executable (or use the endpoints flags)`,
    };
  }
  const { version, how } = found;
  if (!pinAccepts(c.pin, version)) {
    return {
      ...base,
      status: 'warn',
      detail: `vLLM ${version} (from ${how}) is not ${pin}: the ${c.pin.runType} needs ${pin} (${c.pin.why}); its rules follow vLLM ${c.pin.rulesFrom}`,
      action: `${install}, or point ${c.binFrom} at a vllm of ${pin} (a run refuses a server outside its pin)`,
    };
  }
  const note = c.pin.below !== null && version !== c.pin.rulesFrom ? `; the seed pins ${c.pin.rulesFrom}` : '';
  return { ...base, status: 'ok', detail: `vLLM ${version} (from ${how})${note}`, action: null };
}

export async function checkFfmpeg(env: NodeJS.ProcessEnv): Promise<DoctorLine> {
  const base = { id: 'ffmpeg', title: 'ffmpeg' };
  const r = await probe('ffmpeg', ['-version'], env);
  if (!r.ok) return { ...base, status: 'fail', detail: r.message, action: 'apt-get install -y ffmpeg (frames are decoded with ffmpeg)' };
  const first = r.stdout.split('\n')[0].trim();
  return { ...base, status: 'ok', detail: first.replace(/ Copyright.*$/, ''), action: null };
}
