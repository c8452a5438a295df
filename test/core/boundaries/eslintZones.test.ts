// The layer zones of eslint.config.mjs, through ESLint's own API on the repository's config: the engine (every
// folder of src/core/ but protocols/, and the worker's dispatch) fails lint when it imports a run type, in any
// import form; a run type's own files may; the boundary's types.ts is allowed as `import type` only; a run type
// imports no other run type; and no product file imports the stand-ins. Snippets are linted at paths under src/ (the files need not exist); only the zone
// rules run (typed linting needs real files, and the zones do not need types).
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { ESLint } from 'eslint';

const REPO = path.resolve(__dirname, '../../..');
const ZONE_RULES = new Set(['@typescript-eslint/no-restricted-imports', 'no-restricted-syntax']);

let eslint: ESLint;

/** The zone errors of `code` linted as the file `filePath` (relative to the repository). */
async function zoneErrors(code: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(REPO, filePath) });
  const fatal = result.messages.filter((m) => m.fatal);
  assert.deepEqual(fatal, [], `${filePath} did not parse`);
  return result.messages.filter((m) => m.ruleId !== null && ZONE_RULES.has(m.ruleId)).map((m) => `${m.line}: ${m.message}`);
}

const IMPORTS_FP = "import { MODEL } from '../protocols/fp/rules/constants';\nexport const m = MODEL;\n";

describe('eslint zones: the engine imports no run type', function () {
  this.timeout(60_000);

  before(() => {
    eslint = new ESLint({
      cwd: REPO,
      ruleFilter: ({ ruleId }) => ZONE_RULES.has(ruleId),
      overrideConfig: { languageOptions: { parserOptions: { projectService: false } } },
    });
  });

  it('an engine file importing a protocol fails, in every engine folder; the same import in a protocol passes', async () => {
    for (const dir of ['runner', 'serving', 'package', 'doctor', 'returns']) {
      const errors = await zoneErrors(IMPORTS_FP, `src/core/${dir}/zoneProbe.ts`);
      assert.equal(errors.length, 1, `src/core/${dir}: ${JSON.stringify(errors)}`);
      assert.match(errors[0], /^1: .*'\.\.\/protocols\/fp\/rules\/constants' import is restricted.*The engine imports no run type/);
    }
    assert.equal((await zoneErrors("import { x } from './protocols/fp/rules';\nexport const y = x;\n", 'src/core/zoneProbe.ts')).length, 1, 'src/core/*.ts');
    assert.deepEqual(await zoneErrors(IMPORTS_FP, 'src/core/protocols/zoneProbe.ts'), []);
  });

  it('a run type imports no other run type, at any depth, in any form; its own files, the engine and the boundary it may', async () => {
    const violations: [string, string][] = [
      ['src/core/protocols/avtime/zoneProbe.ts', "import { fpProtocol } from '../fp';\nexport const p = fpProtocol;"],
      ['src/core/protocols/fp/doctor/zoneProbe.ts', "import { avtimeVllmChecks } from '../../avtime/doctor/vllmChecks';\nexport const c = avtimeVllmChecks;"],
      ['src/core/protocols/avtime/stages/drivers/zoneProbe.ts', "export { MODEL } from '../../../fp/rules/constants';"],
      [
        'src/core/protocols/caption/zoneProbe.ts',
        "import type { TargetRequestBody } from '../avtime/stages/targetRequest';\nexport type B = TargetRequestBody;",
      ],
      ['src/core/protocols/fp/sweep/zoneProbe.ts', "import '../../../protocols/avtime/stages/job';"],
      ['src/core/protocols/fp/zoneProbe.ts', "export async function a(): Promise<unknown> { return import('../../../core/protocols/avtime/stages/run'); }"],
      ['src/core/protocols/tally/zoneProbe.ts', "export function b(): unknown { return require('../fp/job'); }"],
    ];
    for (const [file, code] of violations) {
      const errors = await zoneErrors(code + '\n', file);
      assert.equal(errors.length, 1, `${file}: ${code}: ${JSON.stringify(errors)}`);
      assert.match(errors[0], /A run type imports no other run type/);
    }
    const allowed: [string, string][] = [
      [
        'src/core/protocols/avtime/stages/zoneProbe.ts',
        "import { layout } from './layout';\nimport { x } from '../judge/context';\nexport const l = [layout, x];",
      ],
      ['src/core/protocols/avtime/stages/zoneProbe.ts', "import { writeFileAtomic } from '../../../runner/atomicFile';\nexport const w = writeFileAtomic;"],
      [
        'src/core/protocols/avtime/zoneProbe.ts',
        "import { QWEN3_OMNI_SERVE_FLAGS } from '../../serving/models/qwen3Omni/serveFlags';\nexport const f = QWEN3_OMNI_SERVE_FLAGS;",
      ],
      ['src/core/protocols/fp/doctor/zoneProbe.ts', "import type { DoctorHookOptions } from '../../types';\nexport type O = DoctorHookOptions;"],
    ];
    for (const [file, code] of allowed) assert.deepEqual(await zoneErrors(code + '\n', file), [], `${file}: ${code}`);
  });

  it('sees every import form: re-export, side effect, import(), require(), a path back through core/', async () => {
    const forms = [
      "export { MODEL } from '../protocols/fp/rules/constants';",
      "import '../protocols/avtime/stages/job';",
      "export async function a(): Promise<unknown> { return import('../protocols/fp/job'); }",
      "export function b(): unknown { return require('../protocols/registry'); }",
      "import { PROTOCOLS } from '../../core/protocols/registry';\nexport const c = PROTOCOLS;",
      "import * as all from '../protocols';\nexport const d = all;",
    ];
    for (const form of forms) {
      const errors = await zoneErrors(form + '\n', 'src/core/runner/zoneProbe.ts');
      assert.equal(errors.length, 1, `${form}: ${JSON.stringify(errors)}`);
      assert.match(errors[0], /The engine imports no run type/);
    }
    assert.deepEqual(await zoneErrors("import { acquireLock } from './lock';\nexport const l = acquireLock;\n", 'src/core/runner/zoneProbe.ts'), []);
  });

  it('the boundary (protocols/types.ts) is allowed as `import type` only; the worker dispatch is fenced too', async () => {
    const typeOnly = "import type { ProtocolRegistry } from '../core/protocols/types';\nexport type R = ProtocolRegistry;\n";
    assert.deepEqual(await zoneErrors(typeOnly, 'src/worker/dispatch.ts'), []);
    const value = "import { ProtocolRegistry } from '../core/protocols/types';\nexport const R = ProtocolRegistry;\n";
    assert.match((await zoneErrors(value, 'src/worker/dispatch.ts')).join('\n'), /as types only/);
    assert.match(
      (await zoneErrors("import { PROTOCOLS } from '../core/protocols/registry';\nexport const P = PROTOCOLS;\n", 'src/worker/dispatch.ts')).join('\n'),
      /The engine imports no run type/,
    );
    assert.match(
      (await zoneErrors("export async function t(): Promise<unknown> { return import('../protocols/types'); }\n", 'src/core/runner/zoneProbe.ts')).join('\n'),
      /The engine imports no run type/,
    );
    // The worker's table of run types (jobRunners.ts) imports them by design.
    assert.deepEqual(await zoneErrors("import { runFpJob } from '../core/protocols/fp/job';\nexport const j = runFpJob;\n", 'src/worker/jobRunners.ts'), []);
  });

  it('no product file imports the stand-ins; tests may', async () => {
    const standin = (up: string) => `import { readStandinEnv } from '${up}standins/vllm/config';\nexport const e = readStandinEnv;\n`;
    for (const [file, up] of [
      ['src/cli/zoneProbe.ts', '../'],
      ['src/extension/zoneProbe.ts', '../'],
      ['src/core/runner/zoneProbe.ts', '../../'],
      ['src/core/protocols/fp/zoneProbe.ts', '../../../'],
    ]) {
      const errors = await zoneErrors(standin(up), file);
      assert.equal(errors.length, 1, `${file}: ${JSON.stringify(errors)}`);
      assert.match(errors[0], /Test doubles are not product/);
    }
    assert.deepEqual(await zoneErrors(standin('../../../src/'), 'test/core/serving/zoneProbe.ts'), []);
  });
});
