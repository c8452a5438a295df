// vLLM (and its version), ffmpeg, the model revision in the Hugging Face cache.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { DoctorLine } from './schema';
import { probe } from './probe';
import { MODEL, MODEL_REVISION } from '../protocols/fp/rules';
import { hfHome } from '../returns/token';

/** The vLLM the seed pins (seed §2, code/requirements.txt). */
export const EXPECTED_VLLM = '0.11.0';

/** 0.11.x, with or without a local suffix (0.11.0+cu128, 0.11.1rc1). */
export function isVllm011(version: string): boolean {
  return /^0\.11\.\d+(?:\D.*)?$/.test(version);
}

export async function checkVllm(env: NodeJS.ProcessEnv): Promise<DoctorLine> {
  const base = { id: 'vllm', title: 'vLLM' };
  const bin = env.VLLM_BIN || 'vllm';
  let version: string | null = null;
  let how = '';
  const r = await probe(bin, ['--version'], env, 60_000);
  if (r.ok) {
    version = (r.stdout.trim().split('\n').pop() ?? '').trim();
    how = `\`${bin} --version\``;
  } else {
    const py = await probe(env.PYTHON || 'python3', ['-c', 'import vllm; print(vllm.__version__)'], env, 120_000);
    if (py.ok) {
      version = py.stdout.trim().split('\n').pop()!.trim();
      how = '`python3 -c "import vllm"`';
    } else {
      return {
        ...base,
        status: 'fail',
        detail: `${r.message}; and python3 cannot import vllm`,
        action: `pip install -r code/requirements.txt (vllm ${EXPECTED_VLLM}), or set VLLM_BIN to the vllm executable (or use --endpoints)`,
      };
    }
  }
  const plain = version.replace(/^v/, '').match(/\d+\.\d+\.\d+\S*/)?.[0] ?? version;
  if (!isVllm011(plain)) {
    return {
      ...base,
      status: 'warn',
      detail:
        `vLLM ${plain} (from ${how}) is not 0.11.x: ` +
        `the engine follows vLLM 0.11's rules (media paths, context checks, error wording, /health), ` +
        `and the seed pins ${EXPECTED_VLLM}`,
      action: `pip install vllm==${EXPECTED_VLLM} (another version can refuse the frames, count tokens or word errors differently, and mislead the run)`,
    };
  }
  return { ...base, status: 'ok', detail: `vLLM ${plain} (from ${how})${plain === EXPECTED_VLLM ? '' : `; the seed pins ${EXPECTED_VLLM}`}`, action: null };
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
