// The sweep's progress views (cells, benchmarks, the failed-before rule) are the Frames × Pixels protocol's own:
// src/core/protocols/fp/progress.ts. Re-exported here for the extension's modules and their tests.
export * from '../core/protocols/fp/progress';
