/**
 * The shared sample run package for tests: generated ONCE (per machine, per generator source) and
 * reused by every test file and every later test run.
 *
 * Use:
 *   import { getSamplePackage, copySamplePackage } from './fixture';
 *   before(async function () {
 *     this.timeout(SAMPLE_TIMEOUT_MS);          // the first call may encode the videos (~20–60 s)
 *     const sample = await getSamplePackage();  // read-only: NEVER write into sample.root
 *   });
 *   // A test that writes (the runner, prepare, return…) takes its own copy (a few MB, fast):
 *   const mine = await copySamplePackage();               // extracted store included
 *   const shardsOnly = await copySamplePackage({ extract: false }); // videos/ shards only, for prepare
 *
 * Ground truth: `sample.plan` (a SamplePlan) says what was made: `plan.videos` with their traits
 * (`long`, `tooShort`, `storedShortSide`, `lateStart`, `vfr`, `tag`, `uses`), `plan.items` with
 * `hash` and `missing` ('no_manifest_row' | 'no_folder' | null), `plan.existing` (base rows already in
 * the CSV), `plan.xssItemId`. Assert counts from it, never hard-code them. Frames carry their index:
 * `decodeFrameIndex(jpegOrRaw)` from src/core/protocols/fp/sample/frameCode.ts.
 *
 * Cache: <os.tmpdir()>/fpsweep-sample-cache/<key>/{package/, summary.json}; the key hashes the
 * generator version and the source of src/core/protocols/fp/sample, src/core/protocols/fp/rules, the package layout and
 * the CSV row writer, so a change there makes a new package. One process builds an entry (a lock
 * file makes concurrent test processes wait for it) in a temporary folder renamed into place, and
 * its file list and sizes are checked on first use in each process: a package someone wrote into
 * is thrown away and made again. FPSWEEP_SAMPLE_CACHE overrides the cache folder.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { makeSamplePackage, SAMPLE_GENERATOR_VERSION, type SamplePlan, type SampleSummary } from '../../../../../src/core/protocols/fp/sample';

export const SAMPLE_TIMEOUT_MS = 300_000;

export interface SampleFixture {
  /** The package root (read-only for the shared one). */
  root: string;
  /** Ground truth of what the package holds. */
  plan: SamplePlan;
  /** How it was made (counts, and how long it took when it was generated). */
  summary: Omit<SampleSummary, 'plan' | 'root'>;
  /** True when this call generated it (false: taken from the cache). */
  generated: boolean;
}

const REPO = path.resolve(__dirname, '../../../../..');
/** Source files whose change changes the package. */
const SOURCE_DIRS = ['src/core/protocols/fp/sample', 'src/core/protocols/fp/rules'];
const SOURCE_FILES = ['src/core/protocols/fp/package/layout.ts', 'src/core/protocols/fp/sweep/csvRow.ts'];

function cacheRoot(): string {
  return process.env.FPSWEEP_SAMPLE_CACHE ?? path.join(os.tmpdir(), 'fpsweep-sample-cache');
}

async function sourceKey(scale: number, planted: boolean): Promise<string> {
  const h = createHash('sha256').update(`v${SAMPLE_GENERATOR_VERSION}/scale${scale}${planted ? '/planted' : ''}\n`);
  const files = [...SOURCE_FILES];
  for (const dir of SOURCE_DIRS) {
    for (const f of (await fs.readdir(path.join(REPO, dir))).sort()) if (f.endsWith('.ts')) files.push(`${dir}/${f}`);
  }
  for (const f of files.sort()) {
    h.update(f + '\n');
    h.update(await fs.readFile(path.join(REPO, f)).catch(() => Buffer.from('(missing)')));
  }
  return `v${SAMPLE_GENERATOR_VERSION}-s${scale}${planted ? '-planted' : ''}-${h.digest('hex').slice(0, 16)}`;
}

/** Relative path and size of every file: enough to notice a row appended or a file added. */
async function fingerprint(root: string): Promise<string> {
  const lines: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const e of (await fs.readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) await walk(p);
      else lines.push(`${path.relative(root, p)} ${(await fs.stat(p)).size}`);
    }
  };
  await walk(root);
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

interface CacheEntry {
  summary: Omit<SampleSummary, 'root'>;
  fingerprint: string;
}

async function readEntry(dir: string): Promise<CacheEntry | null> {
  try {
    const entry = JSON.parse(await fs.readFile(path.join(dir, 'summary.json'), 'utf8')) as CacheEntry;
    if (entry.fingerprint === (await fingerprint(path.join(dir, 'package')))) return entry;
    console.warn(`fpsweep sample fixture: ${dir} was modified by a test; making it again`);
  } catch {
    // absent or half-removed: made again below
  }
  return null;
}

async function removeStale(root: string, keep: string): Promise<void> {
  const hourAgo = Date.now() - 3600_000;
  const weekAgo = Date.now() - 7 * 24 * 3600_000;
  for (const name of await fs.readdir(root).catch(() => [] as string[])) {
    if (name === keep) continue;
    const p = path.join(root, name);
    const st = await fs.stat(p).catch(() => null);
    if (!st) continue;
    if (name.endsWith('.lock')) continue; // lockEntry breaks stale locks itself
    const temp = name.includes('.tmp-') || name.includes('.bad-');
    if ((temp && st.mtimeMs < hourAgo) || st.mtimeMs < weekAgo) await fs.rm(p, { recursive: true, force: true });
  }
}

async function generate(finalDir: string, scale: number, planted: boolean): Promise<CacheEntry> {
  const tmp = `${finalDir}.tmp-${process.pid}-${Date.now()}`;
  try {
    const made = await makeSamplePackage({ out: path.join(tmp, 'package'), extract: true, scale, planted });
    const { root: _root, ...summary } = made;
    console.log(`    (sample package generated in ${made.seconds.toFixed(1)} s: ${made.videos} videos, ${made.frames} frames, ${made.items} items)`);
    const entry: CacheEntry = { summary, fingerprint: await fingerprint(path.join(tmp, 'package')) };
    await fs.writeFile(path.join(tmp, 'summary.json'), JSON.stringify(entry));
    try {
      await fs.rename(tmp, finalDir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err;
      // Another process finished first: use its package (same source, same content).
      const theirs = await readEntry(finalDir);
      if (theirs) return theirs;
      throw err;
    }
    return entry;
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

const memo = new Map<string, Promise<SampleFixture>>();

const LOCK_STALE_MS = 15 * 60_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes `<entry>.lock` (O_EXCL) so that test processes started together encode the videos once:
 * the others wait and then find the entry. A lock whose owner is dead, or older than 15 min, is broken.
 */
async function lockEntry(dir: string): Promise<() => Promise<void>> {
  const lock = `${dir}.lock`;
  for (;;) {
    try {
      await fs.writeFile(lock, String(process.pid), { flag: 'wx' });
      return () => fs.rm(lock, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = Number(await fs.readFile(lock, 'utf8').catch(() => ''));
    const st = await fs.stat(lock).catch(() => null);
    if (st && ((owner > 0 && !alive(owner)) || Date.now() - st.mtimeMs > LOCK_STALE_MS)) {
      await fs.rm(lock, { force: true });
      continue;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function load(scale: number, planted: boolean): Promise<SampleFixture> {
  const root = cacheRoot();
  await fs.mkdir(root, { recursive: true });
  const key = await sourceKey(scale, planted);
  const dir = path.join(root, key);
  await removeStale(root, key);
  let entry = await readEntry(dir);
  let generated = false;
  if (!entry) {
    const unlock = await lockEntry(dir);
    try {
      entry = await readEntry(dir); // made by the process we waited for?
      if (!entry) {
        // A modified or broken entry is moved aside first, so the rename of the new one can succeed.
        await fs.rename(dir, `${dir}.bad-${process.pid}-${Date.now()}`).catch(() => undefined);
        entry = await generate(dir, scale, planted);
        generated = true;
      }
    } finally {
      await unlock();
    }
  }
  const { plan, ...summary } = entry.summary;
  return { root: path.join(dir, 'package'), plan, summary, generated };
}

/** The shared, read-only sample package (extracted store included). Generated on first use. */
export function getSamplePackage(opts: { scale?: number; planted?: boolean } = {}): Promise<SampleFixture> {
  const scale = opts.scale ?? 1;
  const memoKey = `${scale}${opts.planted ? '/planted' : ''}`;
  let p = memo.get(memoKey);
  if (!p) {
    p = load(scale, opts.planted === true);
    memo.set(memoKey, p);
    p.catch(() => memo.delete(memoKey)); // a failed generation is retried by the next caller
  }
  return p;
}

/**
 * A private, writable copy of the sample package in a new temporary folder (or `dest`, which must
 * not exist). `extract: false` leaves out data/store/normalized, as `fpsweep sample --no-extract`
 * does (the shards and everything else are byte-identical).
 */
export async function copySamplePackage(opts: { extract?: boolean; scale?: number; planted?: boolean; dest?: string } = {}): Promise<SampleFixture> {
  const shared = await getSamplePackage({ scale: opts.scale, planted: opts.planted });
  const dest = opts.dest ?? path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'fpsweep-sample-copy-')), 'fp');
  const storeDir = path.join(shared.root, 'data', 'store', 'normalized');
  await fs.cp(shared.root, dest, {
    recursive: true,
    errorOnExist: true,
    force: false,
    filter: (src) => opts.extract !== false || !(src === storeDir || src.startsWith(storeDir + path.sep)),
  });
  if (opts.extract === false) {
    // `sample --no-extract` makes no data/ folder at all.
    await fs.rm(path.join(dest, 'data'), { recursive: true, force: true });
  }
  return { ...shared, root: dest, generated: false };
}
