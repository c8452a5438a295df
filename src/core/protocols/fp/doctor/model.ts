// Frames × Pixels' model in the Hugging Face cache: Qwen3-VL-8B at its pinned revision, with its weights.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { DoctorLine } from '../../../doctor/schema';
import { hfHome } from '../returns/token';
import { MODEL, MODEL_REVISION } from '../rules';

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
