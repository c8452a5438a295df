// The frame store as vLLM must be told about it: by its real path, checked from the package root.
import { mkdirUnderSync } from '../../../containment/rootFs';

/**
 * The store's real path (made first if missing), checked from `root` (the package root): a link at the store's
 * folder or on its path below the root is refused (ContainmentError, exit 2), so a launched vLLM is never given an
 * outside folder as its media path (issue 42). vLLM 0.11 resolves each `file://` path but takes
 * `--allowed-local-media-path` literally (vllm/multimodal/utils.py MediaConnector._load_file_url), so a package
 * reached through a symlink works only when the flag and every URL name the real path.
 */
export function realFrameStoreDir(root: string, storeDir: string): string {
  return mkdirUnderSync(root, storeDir);
}
