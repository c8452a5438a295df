// The UI half of the cut run type (issue 27 point 6): its output roots in the progress tree (source videos by state,
// degraded cuts said, live from the run type's progress detail), "Cut videos…" in the extension's one Start, and
// the tree following an output root a runbook step made. The engine half is found by id in the registry
// (core/protocols/registry.ts): until it is registered the tree has nothing to read. The caption viewer shows a cut's
// clips and boundaries: an output root is also a caption videos root.
import type { CutProgressDetail } from '../../../core/protocols/cut/progressTypes';
import { engineHalf } from '../engineHalf';
import { RunRootsView } from '../runRootsView';
import type { ProtocolUi, RunStart, UiHost } from '../types';
import { cutSearchFolders } from './cutSettings';
import { startCut } from './cutStart';
import { cutRootRow, cutSection } from './cutTreeRows';

const { engine, protocol } = engineHalf('cut', 'Cuts');

class CutView extends RunRootsView<CutProgressDetail> {
  readonly commands = [];
  readonly starts: readonly RunStart[];

  constructor(host: UiHost) {
    super(engine, host, cutRootRow, { section: 'cut', searchFolders: cutSearchFolders });
    const startHost = { distDir: host.distDir, output: host.output, model: this.model };
    this.starts = [
      {
        label: 'Cut videos…',
        detail: 'fpsweep avtime cut: each source video into segments.json and clips/ (builtin cutter or yours)',
        run: (root) => startCut(startHost, root),
      },
    ];
  }

  section() {
    return cutSection(this.model.all, protocol);
  }
}

export const cutUi: ProtocolUi = { protocol, activate: (host) => new CutView(host) };
