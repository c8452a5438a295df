// The module graph's rules (dependency-cruiser, run by `npm run lint:deps`, part of `npm run lint`): the one source
// of truth for the layers. Paths are resolved by TypeScript's own rules (tsconfig.json), so every import form counts:
// `import`, `import type` (tsPreCompilationDeps), `export … from`, `import()`, `require()`.
//
// The layers, bottom up: the engine (src/core/ but protocols/) → the run types (src/core/protocols/<id>/, one folder
// each; src/core/protocols/types.ts is their boundary, registry.ts their list) → the CLI, the worker, the extension
// (src/extension/, media/src/ the webview). The stand-ins (src/standins/) are test doubles beside the product.

/** The engine: every folder and file of src/core/ but protocols/, and the worker's dispatch (its generic half). */
const ENGINE = ['^src/core/(?!protocols/)', '^src/worker/dispatch\\.ts$'];
/** `vscode` (its types, resolved from @types/vscode: there is no runtime module to resolve). */
const VSCODE = '(^|/)vscode$|/@types/vscode/';
/** Above the run types: the CLI, the worker, the extension, the webview. */
const UPPER = '^(src/(cli|worker|extension)|media/src)/';
/** The product: what the VSIX runs. */
const PRODUCT = '^(src/(core|cli|worker|extension)|media/src)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle, type imports included: move the piece both sides need down into a module of its own (a types file, the lower layer).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'engine-imports-no-run-type',
      severity: 'error',
      comment:
        'The engine imports no run type: a run type imports the engine (src/core/protocols/types.ts is the boundary), never the other way, ' +
        'so a new run type is a folder and lines in the registries, with no edit to the engine.',
      from: { path: ENGINE },
      to: { path: '^src/core/protocols/', pathNot: '^src/core/protocols/types\\.ts$' },
    },
    {
      name: 'engine-sees-the-boundary-as-types',
      severity: 'error',
      comment: 'The engine may see the boundary (src/core/protocols/types.ts) as types only: `import type`.',
      from: { path: ENGINE },
      to: { path: '^src/core/protocols/types\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'engine-imports-no-upper-layer',
      severity: 'error',
      comment: 'The engine (src/core/ but protocols/) is plain Node driven by the CLI: it imports neither the CLI, the worker, the extension nor the webview.',
      from: { path: '^src/core/(?!protocols/)' },
      to: { path: UPPER },
    },
    {
      name: 'run-type-imports-no-upper-layer',
      severity: 'error',
      comment:
        "A run type's core imports neither the worker, the extension nor the webview (its UI half, in src/extension/protocols/<id>/, " +
        'imports it); the CLI: run-type-imports-no-cli.',
      from: { path: '^src/core/protocols/' },
      to: { path: UPPER, pathNot: '^src/cli/' },
    },
    {
      name: 'run-type-imports-no-cli',
      severity: 'error',
      comment:
        'No import from src/core/protocols/ reaches src/cli/ (issue 41): a verb of a run type parses its flags with src/core/cli/options.ts ' +
        '(the one flag layer) and is a VerbModule of src/core/cli/verb.ts; src/cli/ only lists it (runTypeVerbs.ts).',
      from: { path: '^src/core/protocols/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'cli-and-worker-import-no-extension',
      severity: 'error',
      comment: 'The CLI and the worker run without VS Code: they import neither the extension nor the webview.',
      from: { path: '^src/(cli|worker)/' },
      to: { path: '^(src/extension|media/src)/' },
    },
    {
      name: 'core-imports-no-vscode',
      severity: 'error',
      comment: 'src/core/ is plain Node (the CLI runs it): no `vscode`, not even its types. The extension is the thin layer over it.',
      from: { path: '^src/core/' },
      to: { path: VSCODE },
    },
    {
      name: 'run-type-imports-no-run-type',
      severity: 'error',
      comment:
        'A run type imports no other run type (src/core/protocols/<a>/ → src/core/protocols/<b>/): what two run types share belongs to the ' +
        'engine (a model under src/core/serving/models/, a rule in src/core/runner/).',
      from: { path: '^src/core/protocols/([^/]+)/' },
      to: { path: '^src/core/protocols/[^/]+/', pathNot: '^src/core/protocols/$1/' },
    },
    {
      name: 'product-imports-no-standin',
      severity: 'error',
      comment: 'Test doubles are not product: nothing the VSIX runs imports src/standins/ (they are started as VLLM_BIN).',
      from: { path: PRODUCT },
      to: { path: '^src/standins/' },
    },
    {
      name: 'webview-imports-no-vscode',
      severity: 'error',
      comment: 'The webview bundle (media/src/) runs in the browser: it may not import `vscode` (it talks to the host by message).',
      from: { path: '^media/src/' },
      to: { path: VSCODE },
    },
    {
      name: 'webview-imports-no-node',
      severity: 'error',
      comment: 'The webview bundle (media/src/) runs in the browser: no Node built-in, there or in what it imports.',
      from: { path: '^media/src/' },
      to: { dependencyTypes: ['core'] },
    },
  ],
  options: {
    doNotFollow: { path: ['node_modules'] },
    exclude: { path: ['^test/fixtures/runTypes/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
    reporterOptions: {
      dot: { collapsePattern: '^(node_modules/[^/]+|src/core/protocols/[^/]+|src/[^/]+/[^/]+)/' },
    },
  },
};
