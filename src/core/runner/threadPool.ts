// sharp runs each frame's resize + JPEG on a thread of libuv's pool, and libuv starts 4 threads unless
// UV_THREADPOOL_SIZE says otherwise: on a many-core host, 4 encodes at a time would trail cores − 1
// decodes. libuv reads the variable once, when its pool first starts (the first asynchronous fs, dns,
// zlib or sharp call), so a process entry point calls sizeThreadPool() before anything else.
import * as os from 'node:os';

/** libuv's own ceiling is 1024; past the core count, more threads only wait. */
export function threadPoolSizeFor(cores: number): number {
  return Math.max(4, Math.min(1024, cores));
}

/** Sets UV_THREADPOOL_SIZE in `env` (this process's by default) unless the user set it; returns `env`. */
export function sizeThreadPool(env: NodeJS.ProcessEnv = process.env, cores = os.availableParallelism()): NodeJS.ProcessEnv {
  if (!env.UV_THREADPOOL_SIZE) env.UV_THREADPOOL_SIZE = String(threadPoolSizeFor(cores));
  return env;
}
