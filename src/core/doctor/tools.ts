// vLLM (one line per run type, each against its own pin), ffmpeg, the model revision in the Hugging Face cache.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { DoctorLine } from './schema';
import { probe } from './probe';
import { MODEL, MODEL_REVISION } from '../protocols/fp/rules';
import { hfHome } from '../returns/token';
import { describePin, pinAccepts, type VllmPin } from '../serving/vllmVersion';
import { FP_VLLM_PIN } from '../protocols/fp/vllmPin';
import { AVTIME_JUDGE_VLLM_PIN, AVTIME_TARGET_VLLM_PIN } from '../protocols/avtime/vllmPins';

/** One vLLM executable's version: `BIN --version`, else (the default `vllm` only) python3's `import vllm`. */
export async function vllmVersionOf(bin: string, env: NodeJS.ProcessEnv): Promise<{ version: string; how: string } | { error: string }> {
  const r = await probe(bin, ['--version'], env, 60_000);
  if (r.ok) return { version: plainVersion((r.stdout.trim().split('\n').pop() ?? '').trim()), how: `\`${bin} --version\`` };
  if (bin !== 'vllm') return { error: r.message };
  const py = await probe(env.PYTHON || 'python3', ['-c', 'import vllm; print(vllm.__version__)'], env, 120_000);
  if (py.ok) return { version: plainVersion(py.stdout.trim().split('\n').pop()!.trim()), how: '`python3 -c "import vllm"`' };
  return { error: `${r.message}; and python3 cannot import vllm` };
}

function plainVersion(v: string): string {
  return v.replace(/^v/, '').match(/\d+\.\d+\.\d+\S*/)?.[0] ?? v;
}

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
}

/** An AVTime role's executable: a missing or off-pin one warns (an FP-only host passes doctor; the run refuses). */
function avtimeCheck(role: 'target' | 'judge', bin: string, pin: VllmPin): VllmCheck {
  return {
    id: `vllm_avtime_${role}`,
    bin,
    binFrom: `--${role}-vllm-bin (${role.toUpperCase()}_VLLM_BIN)`,
    pin,
    missing: 'warn',
    install: `pip install 'vllm>=${pin.min}' in its own environment`,
  };
}

/** The run types' vLLM executables and pins: FP on VLLM_BIN; AVTime's target and judge on their own (default VLLM_BIN). */
export function vllmChecks(env: NodeJS.ProcessEnv): VllmCheck[] {
  const base = env.VLLM_BIN || 'vllm';
  return [
    { id: 'vllm', bin: base, binFrom: 'VLLM_BIN', pin: FP_VLLM_PIN, missing: 'fail', install: `pip install vllm==${FP_VLLM_PIN.rulesFrom}` },
    avtimeCheck('target', env.TARGET_VLLM_BIN || base, AVTIME_TARGET_VLLM_PIN),
    avtimeCheck('judge', env.JUDGE_VLLM_BIN || base, AVTIME_JUDGE_VLLM_PIN),
  ];
}

/** One line per run type, each held against its own pin; an executable shared by several is asked once. */
export async function checkVllms(env: NodeJS.ProcessEnv): Promise<DoctorLine[]> {
  const checks = vllmChecks(env);
  const asked = new Map<string, ReturnType<typeof vllmVersionOf>>();
  for (const c of checks) if (!asked.has(c.bin)) asked.set(c.bin, vllmVersionOf(c.bin, env));
  return Promise.all(checks.map(async (c) => vllmLine(c, await asked.get(c.bin)!)));
}

function vllmLine(c: VllmCheck, found: Awaited<ReturnType<typeof vllmVersionOf>>): DoctorLine {
  const pin = describePin(c.pin);
  const base = { id: c.id, title: `vLLM for the ${c.pin.runType} (pin ${pin})` };
  const install = c.install;
  if ('error' in found) {
    const how = c.id === 'vllm' ? `pip install -r code/requirements.txt (vllm ${c.pin.rulesFrom})` : `${install} (${c.pin.why})`;
    return { ...base, status: c.missing, detail: found.error, action: `${how}, or point ${c.binFrom} at the vllm executable (or use the endpoints flags)` };
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

/** huggingface_hub's cache: HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub. */
export function hubCacheDir(env: NodeJS.ProcessEnv): string {
  return env.HF_HUB_CACHE || env.HUGGINGFACE_HUB_CACHE || path.join(hfHome(env), 'hub');
}

export async function checkModel(env: NodeJS.ProcessEnv): Promise<DoctorLine> {
  const base = { id: 'model', title: `model ${MODEL}` };
  const repoDir = path.join(hubCacheDir(env), `models--${MODEL.replace('/', '--')}`);
  const snap = path.join(repoDir, 'snapshots', MODEL_REVISION);
  const download = `huggingface-cli download ${MODEL} --revision ${MODEL_REVISION}`;
  let files: string[] = [];
  try {
    files = await fs.readdir(snap);
  } catch {
    let others: string[] = [];
    try {
      others = await fs.readdir(path.join(repoDir, 'snapshots'));
    } catch {
      /* none */
    }
    return {
      ...base,
      status: 'fail',
      detail: `revision ${MODEL_REVISION} is not in ${path.dirname(snap)}${others.length ? ` (found: ${others.join(', ')})` : ''}`,
      action: download,
    };
  }
  const weights = files.filter((f) => f.endsWith('.safetensors')).length;
  if (!files.includes('config.json') || weights === 0) {
    return {
      ...base,
      status: 'fail',
      detail: `snapshot ${snap} is incomplete (${files.includes('config.json') ? '' : 'no config.json; '}${weights} .safetensors file(s))`,
      action: download,
    };
  }
  return { ...base, status: 'ok', detail: `revision ${MODEL_REVISION} in ${snap} (${weights} weight file(s))`, action: null };
}
