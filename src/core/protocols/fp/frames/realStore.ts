// The frame store as vLLM must be told about it: by its real path.
import * as fs from 'node:fs';
import { mkdirUnderSync } from '../../../containment/rootFs';

/**
 * The store's real path (made first if missing). vLLM 0.11 resolves each `file://` path but takes
 * `--allowed-local-media-path` literally (vllm/multimodal/utils.py MediaConnector._load_file_url), so
 * a package reached through a symlink works only when the flag and every URL name the real path.
 */
export function realFrameStoreDir(storeDir: string): string {
  mkdirUnderSync(storeDir, storeDir);
  return fs.realpathSync(storeDir);
}
