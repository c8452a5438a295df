// The module graph's rules (.dependency-cruiser.cjs, `npm run lint:deps`, part of `npm run lint`), through the door
// a contributor takes: files planted into a throwaway copy of the tree, then `npm run lint:deps` there. A cycle
// (type imports included), the engine importing a run type in any form, a run type importing another, the product
// importing a stand-in, src/core/ or the webview importing vscode each fail it, naming the rule and the file; what
// the layers allow (a run type's own files and the engine, the boundary as `import type`) passes.
import * as assert from 'node:assert/strict';
import { makeLintCopy, type LintCopy } from '../../helpers/lintCopy';

/** [planted file, its text, the rule it breaks]. */
const VIOLATIONS: [string, string, string][] = [
  // The engine imports no run type: every engine folder, every import form, a path back through core/.
  ['src/core/runner/plantedEngine1.ts', "import { MODEL } from '../protocols/fp/rules/constants';\nexport const m = MODEL;\n", 'engine-imports-no-run-type'],
  ['src/core/serving/plantedEngine2.ts', "export { MODEL } from '../protocols/fp/rules/constants';\n", 'engine-imports-no-run-type'],
  ['src/core/package/plantedEngine3.ts', "import '../protocols/avtime/stages/job';\n", 'engine-imports-no-run-type'],
  [
    'src/core/doctor/plantedEngine4.ts',
    "export async function a(): Promise<unknown> {\n  return import('../protocols/fp/job');\n}\n",
    'engine-imports-no-run-type',
  ],
  ['src/core/clips/plantedEngine5.ts', "export function b(): unknown {\n  return require('../protocols/registry');\n}\n", 'engine-imports-no-run-type'],
  ['src/core/plantedEngine6.ts', "import { PROTOCOLS } from '../core/protocols/registry';\nexport const p = PROTOCOLS;\n", 'engine-imports-no-run-type'],
  [
    'src/core/runner/plantedEngine7.ts',
    "import type { PROTOCOLS } from '../protocols/registry';\nexport type P = typeof PROTOCOLS;\n",
    'engine-imports-no-run-type',
  ],
  // The boundary as a value import.
  [
    'src/core/runner/plantedBoundary.ts',
    "import { ProgressState } from '../protocols/types';\nexport type S = ProgressState;\n",
    'engine-sees-the-boundary-as-types',
  ],
  // A run type imports no other run type, at any depth, in any form.
  ['src/core/protocols/avtime/plantedSibling1.ts', "import { fpProtocol } from '../fp';\nexport const p = fpProtocol;\n", 'run-type-imports-no-run-type'],
  ['src/core/protocols/avtime/stages/drivers/plantedSibling2.ts', "export { MODEL } from '../../../fp/rules/constants';\n", 'run-type-imports-no-run-type'],
  [
    'src/core/protocols/caption/plantedSibling3.ts',
    "import type { TargetRequestBody } from '../avtime/stages/targetRequest';\nexport type B = TargetRequestBody;\n",
    'run-type-imports-no-run-type',
  ],
  [
    'src/core/protocols/fp/plantedSibling4.ts',
    "export function c(): unknown {\n  return require('../avtime/stages/job');\n}\n",
    'run-type-imports-no-run-type',
  ],
  // A run type imports nothing of src/cli/ (its verbs parse with src/core/cli/, issue 41): not the flags, not main.
  ['src/core/protocols/caption/cli/plantedCli1.ts', "import { main } from '../../../../cli/main';\nexport const m = main;\n", 'run-type-imports-no-cli'],
  ['src/core/protocols/avtime/data/cli/plantedCli2.ts', "export type { VerbModule } from '../../../../../cli/runTypeVerbs';\n", 'run-type-imports-no-cli'],
  // The product imports no stand-in.
  ['src/cli/plantedStandin.ts', "import { readStandinEnv } from '../standins/vllm/config';\nexport const e = readStandinEnv;\n", 'product-imports-no-standin'],
  // src/core/ is plain Node: no vscode, not even its types; no upper layer.
  ['src/core/runner/plantedVscode.ts', "import type * as vscode from 'vscode';\nexport type U = vscode.Uri;\n", 'core-imports-no-vscode'],
  [
    'src/core/serving/plantedUpper.ts',
    "import { Disposable } from '../../extension/lifecycle';\nexport const d = Disposable;\n",
    'engine-imports-no-upper-layer',
  ],
  ['media/src/plantedVscode.ts', "import type * as vscode from 'vscode';\nexport type U = vscode.Uri;\n", 'webview-imports-no-vscode'],
];

/** A cycle of two files, one side type-only: a cycle all the same (reported once, from either file). */
const CYCLE: [string, string][] = [
  ['src/core/runner/plantedCycleA.ts', "import { b } from './plantedCycleB';\nexport const a = b + 1;\n"],
  ['src/core/runner/plantedCycleB.ts', "import type { A } from './plantedCycleA';\nexport const b = 1;\nexport type B = A;\n"],
];

/** Files the layers allow. */
const ALLOWED: [string, string][] = [
  [
    'src/core/protocols/avtime/stages/plantedOwn.ts',
    "import { layout } from './layout';\nimport { x } from '../judge/context';\nexport const l = [layout, x];\n",
  ],
  ['src/core/protocols/avtime/plantedEngine.ts', "import { writeFileAtomic } from '../../runner/atomicFile';\nexport const w = writeFileAtomic;\n"],
  ['src/core/protocols/fp/doctor/plantedBoundary.ts', "import type { DoctorHookOptions } from '../../types';\nexport type O = DoctorHookOptions;\n"],
  ['src/core/runner/plantedTypeBoundary.ts', "import type { ProgressState } from '../protocols/types';\nexport type S = ProgressState;\n"],
  // The CLI contract is below the run types: a run type's verb parses its flags there.
  ['src/core/protocols/cut/cli/plantedFlags.ts', "import { parseVerbArgs } from '../../../cli/options';\nexport const p = parseVerbArgs;\n"],
  ['src/core/runner/plantedOwnFolder.ts', "import { acquireLock } from './lock';\nexport const l = acquireLock;\n"],
];

/** The `error <rule>: <from> →` lines of depcruise's report, as [rule, from]. */
function violations(output: string): [string, string][] {
  return [...output.matchAll(/^\s*error ([\w-]+): (\S+) →/gm)].map((m) => [m[1], m[2]]);
}

describe('dependency rules (npm run lint:deps)', function () {
  this.timeout(300_000);
  let copy: LintCopy;
  after(() => copy?.remove());

  it('fails on each planted cycle and layer breach, naming its rule, and passes what the layers allow', () => {
    copy = makeLintCopy();
    for (const [file, text] of [...CYCLE, ...VIOLATIONS, ...ALLOWED]) copy.plant(file, text);
    const { status, output } = copy.npmRun('lint:deps');
    assert.notEqual(status, 0, output);
    const cycleFile = String.raw`src/core/runner/plantedCycle`;
    assert.match(output, new RegExp(String.raw`error no-circular: ${cycleFile}([AB])\.ts →\s+${cycleFile}(?!\1)[AB]\.ts →\s+${cycleFile}\1\.ts`));
    const planted = new Set([...CYCLE, ...VIOLATIONS, ...ALLOWED].map(([f]) => f));
    const found = violations(output).filter(([rule, from]) => planted.has(from) && rule !== 'no-circular');
    const expected = VIOLATIONS.map(([file, , rule]) => [rule, file]);
    assert.deepEqual(found.map((v) => v.join(' ')).sort(), expected.map((v) => v.join(' ')).sort(), output);
    // Nothing but the planted files breaks a rule: the tree itself passes.
    assert.deepEqual(
      violations(output).filter(([, from]) => !planted.has(from)),
      [],
      output,
    );
  });
});
