// Lint rules for the repository (ESLint flat config). Layout is prettier's job, not ESLint's; prettier does not
// break strings, so max-len keeps lines of long strings from passing its printWidth (160).
// TypeScript is linted type-aware: typescript-eslint's project service finds each file's project
// (tsconfig.json for src/, test/, bench/; media/tsconfig.json for the webview).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const unusedVars = ['error', { args: 'after-used', argsIgnorePattern: '^_', varsIgnorePattern: '^_' }];

// An if/else branch holding only a comment: no-empty lets it pass (right for `catch { /* why */ }`), yet it is dead
// code.
const emptyBranch = {
  selector: 'IfStatement > BlockStatement[body.length=0]',
  message: 'An if/else branch with no statements is dead code: drop it (keep the comment by the code that remains).',
};

// The layers (the engine imports no run type, a run type no other, the product no stand-in, src/core/ no vscode) and
// the cycles are dependency-cruiser's (.dependency-cruiser.cjs, `npm run lint:deps`): it resolves paths, ESLint
// would match specifiers.

export default tseslint.config(
  {
    // test/fixtures/runTypes/: a run type's folder as it will sit under src/ (its imports are relative to there);
    // scripts/proveRunType.ts type-checks and lints it in place, in a copy of the tree.
    ignores: [
      'dist/**',
      'out/**',
      '.tmp/**',
      'node_modules/**',
      'test-output/**',
      'demo-package/**',
      'demo-package-*/**',
      '.vscode-test/**',
      'test/fixtures/runTypes/**',
      // the GPU bench's device carry (git-excluded, bundled by bench/gpuSweep/prepare-carry.sh)
      '.gpusweep/**',
    ],
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
