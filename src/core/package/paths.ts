// Path containment, for every place that opens a file named by a data file or a webview.

import * as path from 'node:path';

/** `child` is `root` or lies under it; both absolute and already resolved (realpath) by the caller. */
export function isInside(root: string, child: string): boolean {
  const rel = path.relative(root, child);
  return rel === '' || (!rel.startsWith('..' + path.sep) && rel !== '..' && !path.isAbsolute(rel));
}
