// Lint rules for the repository (ESLint flat config). Layout is prettier's job, not ESLint's; prettier does not
// break strings, so max-len keeps lines of long strings from passing its printWidth (160).
// TypeScript is linted type-aware: typescript-eslint's project service finds each file's project
// (tsconfig.json for src/, test/, bench/; media/tsconfig.json for the webview).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const unusedVars = ['error', { args: 'after-used', argsIgnorePattern: '^_', varsIgnorePattern: '^_' }];

// An if/else branch holding only a comment: no-empty lets it pass (right for `catch { /* why */ }`), yet it is dead
// code. A const because the zones below set no-restricted-syntax again for their files (a later setting replaces).
const emptyBranch = {
  selector: 'IfStatement > BlockStatement[body.length=0]',
  message: 'An if/else branch with no statements is dead code: drop it (keep the comment by the code that remains).',
};

// Layer zones (what the vscode-jupyter anchor does with import/no-restricted-paths). eslint-plugin-import-x would
// resolve paths, but it needs unrs-resolver, a native binary fetched by a postinstall: so the zones match import
// specifiers instead. Sources import each other by relative path, so a specifier reaching a folder is some `./`
// and `../` steps, optionally back through `src/` or `core/`, then the folder's name.
const reaching = (folder, tail = '(/|$)') => `^(\\.{1,2}/)+((src/)?core/)?${folder}${tail}`;
/** A run type's folder: src/core/protocols/, any file but types.ts (the boundary's types). */
const PROTOCOL_IMPL = reaching('protocols', '(/(?!types$)|$)');
/** src/core/protocols/types.ts: the boundary, as types only. */
const PROTOCOL_TYPES = reaching('protocols', '/types$');
const STANDINS = reaching('standins');
const zones = {
  standins: { regex: STANDINS, message: 'Test doubles are not product: nothing the VSIX runs imports src/standins/ (they are started as VLLM_BIN).' },
  protocolImpl: {
    regex: PROTOCOL_IMPL,
    message: 'The engine imports no run type: a run type imports the engine (src/core/protocols/types.ts is the boundary), never the other way.',
  },
  protocolTypes: {
    regex: PROTOCOL_TYPES,
    allowTypeImports: true,
    message: 'The engine may see the boundary (src/core/protocols/types.ts) as types only: `import type`.',
  },
};
/**
 * Zone: a run type imports no other run type. For a file `depth` folders below its run type's folder
 * (src/core/protocols/<id>/), a specifier that climbs depth + 1 steps lands in src/core/protocols/, and one more name
 * there is a sibling run type, unless it is the boundary (types) or the list (registry); the same through protocols/,
 * core/protocols/ or src/core/protocols/ after more steps. (Back into its own folder by such a path reads as a sibling
 * too: use the short path.) One block a depth, as the zones match specifiers, not resolved paths.
 */
const MAX_RUN_TYPE_DEPTH = 8;
const siblingRunType = (depth) =>
  `^(\\.\\./){${depth + 1}}(\\.\\./protocols/|(\\.\\./){2}core/protocols/|(\\.\\./){3}src/core/protocols/)?(?!(types|registry)(\\.ts)?$)[\\w-]+(/|$)`;
const siblingMessage =
  'A run type imports no other run type (src/core/protocols/<a>/ → src/core/protocols/<b>/): what two run types share belongs to the engine ' +
  '(a model under src/core/serving/models/, a rule in src/core/runner/).';

/** `import()` and `require()` of a zone's specifier (no-restricted-imports sees declarations only). */
const dynamicImportsOf = (regex, message) => {
  const re = `/${regex.replace(/\//g, '\\/')}/`;
  return [
    { selector: `ImportExpression[source.value=${re}]`, message },
    { selector: `CallExpression[callee.name='require'][arguments.0.value=${re}]`, message },
  ];
};

export default tseslint.config(
  {
    // test/fixtures/runTypes/: a run type's folder as it will sit under src/ (its imports are relative to there);
    // scripts/proveRunType.ts type-checks and lints it in place, in a copy of the tree.
    ignores: ['dist/**', 'out/**', '.tmp/**', 'node_modules/**', 'test-output/**', 'demo-package/**', '.vscode-test/**', 'test/fixtures/runTypes/**'],
  },
  js.configs.recommended,
  {
    rules: {
      // Split a long string into concatenated parts (a long regex: build it from parts); a URL may stay whole.
      'max-len': ['error', { code: 160, ignoreUrls: true }],
      'no-empty': 'error',
      eqeqeq: ['error', 'always'],
      // `let x; const f = () => x…; x = make(f)`: the closure needs the name before the value exists.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // no-empty lets a block with a comment pass (right for `catch { /* why */ }`); an if/else branch
      // holding only a comment is dead code all the same.
      'no-restricted-syntax': ['error', emptyBranch],
    },
  },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommended],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': unusedVars,
      '@typescript-eslint/no-floating-promises': 'error',
      // The CLI and the worker load their own modules lazily with require() (startup time, and so a job
      // loads only its protocol); packages still come in through `import`.
      '@typescript-eslint/no-require-imports': ['error', { allow: ['^\\.{1,2}/'] }],
    },
  },
  {
    // Zone: the product (what the VSIX runs) imports no stand-in.
    files: ['src/core/**/*.ts', 'src/cli/**/*.ts', 'src/worker/**/*.ts', 'src/extension/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [zones.standins] }],
      'no-restricted-syntax': ['error', emptyBranch, ...dynamicImportsOf(STANDINS, zones.standins.message)],
    },
  },
  {
    // Zone: the engine imports no run type. Every folder of src/core/ but protocols/ (runner, serving, package,
    // doctor, returns, errors.ts, …) and the worker's dispatch; the boundary's types.ts only as `import type`.
    // (src/worker/jobRunners.ts and main.ts are the worker's table of run types: they import them by design.)
    files: ['src/core/**/*.ts', 'src/worker/dispatch.ts'],
    ignores: ['src/core/protocols/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [zones.standins, zones.protocolImpl, zones.protocolTypes] }],
      'no-restricted-syntax': [
        'error',
        emptyBranch,
        ...dynamicImportsOf(STANDINS, zones.standins.message),
        ...dynamicImportsOf(PROTOCOL_IMPL, zones.protocolImpl.message),
        ...dynamicImportsOf(PROTOCOL_TYPES, zones.protocolImpl.message),
      ],
    },
  },
  // Zone: a run type imports no other run type (and, as every product file, no stand-in).
  ...Array.from({ length: MAX_RUN_TYPE_DEPTH }, (_, depth) => ({
    files: [`src/core/protocols/*/${'*/'.repeat(depth)}*.ts`],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [zones.standins, { regex: siblingRunType(depth), message: siblingMessage }] }],
      'no-restricted-syntax': [
        'error',
        emptyBranch,
        ...dynamicImportsOf(STANDINS, zones.standins.message),
        ...dynamicImportsOf(siblingRunType(depth), siblingMessage),
      ],
    },
  })),
  {
    // Every JSON text the product parses goes through the bounds (src/core/io/boundedJson.ts, issue 33): a file
    // we did not make can then never reach a stack overflow.
    files: ['src/core/**/*.ts', 'src/cli/**/*.ts', 'src/worker/**/*.ts', 'src/extension/**/*.ts', 'media/src/**/*.ts'],
    ignores: ['src/core/io/boundedJson.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'JSON', property: 'parse', message: 'Parse through parseBoundedJson (src/core/io/boundedJson.ts): a depth and size bound first.' },
      ],
    },
  },
  {
    // Tests and the stand-ins (test doubles) read untyped JSON request bodies.
    files: ['test/**/*.ts', 'src/standins/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Node scripts in CommonJS: the bundler script, mocha's reporter, test helper programs.
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: globals.node },
    rules: { 'no-unused-vars': unusedVars },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { sourceType: 'module', globals: globals.node },
  },
);
