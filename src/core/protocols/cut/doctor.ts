// The cut's doctor hook: what the validator needs on every host (ffprobe), what the builtin cutter needs (ffmpeg),
// and what the user's AVCut needs on the GPU host (seed 004 Part I §2–3: PyTorch + TorchAudio, NeMo for Parakeet,
// PySceneDetect, PANNs with its checkpoint, which this release does not download). A missing AVCut piece is a warning:
// the cutter would run degraded, and the run fails such a cut unless --allow-degraded. All of them are warnings,
// so a host that only sweeps or benchmarks is not failed by the cut's needs.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { probe } from '../../runner/probe';
import type { DoctorLine } from '../../doctor/schema';
import type { DoctorHookOptions } from '../types';

/** AVCut's Python modules, each with its detector channel (import name → what it is). */
export const AVCUT_MODULES: readonly { module: string; what: string }[] = [
  { module: 'torch', what: 'PyTorch (every detector)' },
  { module: 'torchaudio', what: 'TorchAudio (audio loading)' },
  { module: 'nemo', what: 'NeMo (the Parakeet ASR: asr)' },
  { module: 'scenedetect', what: 'PySceneDetect (scene)' },
  { module: 'panns_inference', what: 'PANNs (audio_events)' },
];
export const PANNS_CHECKPOINT = 'Cnn14_mAP=0.431.pth';

/** Where the PANNs checkpoint is looked for, as the seed says: PANNS_CHECKPOINT_PATH, else $AVCUT_PANNS_HOME/<name>. */
export function pannsCheckpointPath(env: Readonly<Record<string, string | undefined>>): string | null {
  if (env.PANNS_CHECKPOINT_PATH) return env.PANNS_CHECKPOINT_PATH;
  return env.AVCUT_PANNS_HOME ? path.join(env.AVCUT_PANNS_HOME, PANNS_CHECKPOINT) : null;
}

/** The line for the modules a Python found missing (its stdout: one missing name per line). Pure. */
export function avcutModulesLine(python: string, missing: readonly string[]): DoctorLine {
  const base = { id: 'avcut_modules', title: 'AVCut detectors (Python)' };
  if (!missing.length) return { ...base, status: 'ok', detail: `${python} imports ${AVCUT_MODULES.map((m) => m.module).join(', ')}`, action: null };
  const what = AVCUT_MODULES.filter((m) => missing.includes(m.module)).map((m) => `${m.module}: ${m.what}`);
  return {
    ...base,
    status: 'warn',
    detail: `${python} lacks ${what.join('; ')}: AVCut would cut degraded (--cutter builtin needs none of them)`,
    action: "install PyTorch + TorchAudio for the host's CUDA, then requirements-avcut.txt (seed 004 §3); set AVCUT_PYTHON",
  };
}

const MODULE_NAMES = JSON.stringify(AVCUT_MODULES.map((m) => m.module));
const FIND_MISSING = `import importlib.util as u\nfor m in ${MODULE_NAMES}:\n  print(m) if u.find_spec(m) is None else None`;

export async function cutDoctorLines(_root: string | null, opts: DoctorHookOptions): Promise<DoctorLine[]> {
  const env = opts.env;
  const lines: DoctorLine[] = [];
  const ffprobe = await probe(env.FFPROBE_BIN || 'ffprobe', ['-version'], env);
  lines.push(
    ffprobe.ok
      ? {
          id: 'ffprobe',
          title: 'ffprobe (the segments.json validator)',
          status: 'ok',
          detail: ffprobe.stdout.split('\n')[0].replace(/ Copyright.*$/, ''),
          action: null,
        }
      : {
          id: 'ffprobe',
          title: 'ffprobe (the segments.json validator)',
          status: 'warn',
          detail: `${ffprobe.message}: a cut cannot be validated (nor captioned) without it`,
          action: 'apt-get install -y ffmpeg, or set FFPROBE_BIN',
        },
  );
  const python = env.AVCUT_PYTHON || 'python3';
  const py = await probe(python, ['-c', FIND_MISSING], env);
  lines.push(
    py.ok
      ? avcutModulesLine(
          python,
          py.stdout
            .split('\n')
            .map((l) => l.trim())
            .filter(Boolean),
        )
      : {
          id: 'avcut_modules',
          title: 'AVCut detectors (Python)',
          status: 'warn',
          detail: `${python}: ${py.message}`,
          action: 'set AVCUT_PYTHON to the Python AVCut runs with',
        },
  );
  const ckpt = pannsCheckpointPath(env);
  lines.push(
    ckpt && existsSync(ckpt)
      ? { id: 'panns_checkpoint', title: 'PANNs checkpoint', status: 'ok', detail: ckpt, action: null }
      : {
          id: 'panns_checkpoint',
          title: 'PANNs checkpoint',
          status: 'warn',
          detail: ckpt ? `${ckpt} does not exist` : 'neither PANNS_CHECKPOINT_PATH nor AVCUT_PANNS_HOME is set',
          action: `export PANNS_CHECKPOINT_PATH=/abs/path/${PANNS_CHECKPOINT} (AVCut does not download it; without it audio_events is unavailable)`,
        },
  );
  return lines;
}
