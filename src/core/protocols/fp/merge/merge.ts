// fpsweep merge --into PKG SHARD...: brings the results of `run --shard K/N` copies back into PKG
// with the guarantees of a run (SPEC §4): under PKG's lock, append only, each raw record fsynced
// before its CSV row (ResultsWriter.completeRow after the raw append), nothing of PKG rewritten.
// Everything is checked before the first byte is written; a refusal names both places:
//   - a shard whose inputs (inputs.ts) differ from PKG's;
//   - a key with two different contents (PKG vs shard, shard vs shard, or inside one);
//   - a new row without its raw record, or one that says something else than its raw record;
//   - a raw record with no row (a shard that crashed between the two writes: run it once more).
// Identical content already in PKG is skipped, so merging a shard again adds nothing, and a merge
// that crashed between a raw record and its row is finished by the next merge (the raw record is
// found in PKG, only its row is appended). Failure and timing lines are appended unless the same
// line is there; the shards' run identities join PKG's logs/run_identity.jsonl (the report counts
// rows added from them) and each shard's logs are copied to logs/shards/<name>/.
import { promises as fs } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import * as path from 'node:path';
import { InputError, UsageError } from '../../../errors';
import { PackageLayout } from '../package/layout';
import { failureRecordSchema, timingRecordSchema, type RawRecord } from '../package/schemas';
import { AppendFile, AppendFiles } from '../../../runner/appendFile';
import { runIdentityFile, runIdentitySchema, newRunId } from '../../../runner/identity';
import { acquireLock, liveLockHolder, LockHeldError } from '../../../runner/lock';
import { resumeResults } from '../sweep/resume';
import { setAsideTornJsonlTail } from '../../../runner/tornTail';
import { formatShard, shardSpecSchema } from '../shard/shard';
import { at, readPackageResults, rowMatchesRecord, sameRow, type RawAt, type Where } from './artifacts';
import { describeInputDifference, inputsFingerprint } from './inputs';
import { parseBoundedJson } from '../../../io/boundedJson';
import { ContainmentError, existsUnder, mkdirUnder } from '../../../containment/rootFs';
import { openDirUnder, type DirHandle } from '../../../containment/dirHandle';
import { writeStreamAtomic } from '../../../runner/atomicFile';
import { mergedCompleteness, readCopyRuns, type Completeness } from './completeness';
import { unitKey } from '../package/unitKey';

export interface MergeOptions {
  into: string;
  shards: string[];
  /** Progress lines (the CLI prints them). */
  onLine?: (line: string) => void;
  /** Merge even when the copies leave units of their plan undone (default: refuse, nothing written; issue 43). */
  allowPartial?: boolean;
}

export interface ShardMerged {
  name: string;
  root: string;
  rows: number;
  rawRecords: number;
  /** Rows whose raw record was already in PKG (a merge that stopped between the two writes). */
  rowsCompleted: number;
  /** Rows of the shard already in PKG with the same content (the origin's, or merged before). */
  alreadyThere: number;
  failures: number;
  timing: number;
  runs: number;
}

export interface MergeResult {
  into: string;
  shards: ShardMerged[];
  notes: string[];
  /** What the plan still has to do once the copies are in (checked before anything is written). */
  completeness: Completeness;
  /** false: refused as incomplete (without allowPartial), nothing written. */
  merged: boolean;
}

/** The most problems one refusal lists (the rest are counted). */
const MAX_LISTED = 20;

/** Test hook (crash tests only): exit right after the k-th raw record is fsynced, before its row. */
function exitAfterRaw(): number {
  const v = Number(process.env.FPSWEEP_MERGE_EXIT_AFTER_RAW);
  return Number.isInteger(v) && v > 0 ? v : 0;
}

async function readLines(file: string): Promise<string[]> {
  try {
    return (await fs.readFile(file, 'utf8')).split('\n').filter((l) => l.trim() !== '');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

interface Identity {
  run_id: string;
  shard: string | null;
  line: string;
}

async function readIdentities(layout: PackageLayout): Promise<Identity[]> {
  const out: Identity[] = [];
  for (const line of await readLines(runIdentityFile(layout))) {
    try {
      const id = runIdentitySchema.parse(parseBoundedJson(line));
      const s = shardSpecSchema.safeParse(id.options.shard);
      out.push({ run_id: id.run_id, shard: s.success ? formatShard(s.data) : null, line });
    } catch {
      /* a torn or foreign line: not a run we can name */
    }
  }
  return out;
}

/** `shard-K-of-N` when every run of the copy ran the same shard, else the folder's name. */
function shardName(root: string, ids: Identity[]): string {
  const specs = [...new Set(ids.map((i) => i.shard))];
  if (specs.length === 1 && specs[0]) return `shard-${specs[0].replace('/', '-of-')}`;
  return path.basename(root);
}

interface NewRow {
  record: RawRecord;
  raw: RawAt;
  row: Where;
  shard: number;
  inPkgRaw: boolean;
}

export async function mergeShards(opts: MergeOptions): Promise<MergeResult> {
  if (opts.shards.length === 0) throw new UsageError('name at least one shard package to merge');
  const layout = new PackageLayout(opts.into);
  if (!(await fs.stat(layout.samplesDir).catch(() => null))) throw new InputError(`${layout.root} is not a run package (no items/samples/)`);
  const shardLayouts = opts.shards.map((s) => new PackageLayout(s));
  const roots = new Set<string>();
  for (const s of shardLayouts) {
    if (s.root === layout.root) throw new UsageError(`${s.root} is the package merged into; name the shard copies only`);
    if (roots.has(s.root)) throw new UsageError(`${s.root} is named twice`);
    roots.add(s.root);
    if (!(await fs.stat(s.samplesDir).catch(() => null))) throw new InputError(`${s.root} is not a run package (no items/samples/)`);
    const holder = await liveLockHolder(s);
    if (holder) throw new InputError(`${s.root} is still being run (pid ${holder.pid} on ${holder.hostname}); merge it once its run has ended`);
  }
  const say = (l: string) => opts.onLine?.(l);
  const mergeId = `merge-${newRunId()}`;
  const lock = await acquireLock(layout, mergeId, (m) => say(m));
  let closeWriter: (() => Promise<void>) | null = null;
  const raws = new AppendFiles(layout.root);
  try {
    // Same repair as a run's start: torn tails aside, rows completed from raw records that lost theirs.
    const resumed = await resumeResults(layout);
    closeWriter = () => resumed.writer.close();
    const notes: string[] = [];
    if (resumed.report.csvTorn) notes.push(`${layout.resultsCsv}: torn last line moved to ${layout.resultsCsvTorn}`);
    for (const t of resumed.report.rawTorn) notes.push(`${t.file}: torn last line moved to ${t.sideFile}`);
    for (const r of resumed.report.completed) notes.push(`CSV row completed from its raw record for (${r.benchmark}, ${r.item_id}, ${r.condition})`);
    for (const f of [layout.failuresLog, layout.timingLog, runIdentityFile(layout)]) {
      const t = await setAsideTornJsonlTail(f);
      if (t) notes.push(`${t.file}: torn last line moved to ${t.sideFile}`);
    }

    // Check everything first: a refused merge writes nothing.
    const pkgInputs = await inputsFingerprint(layout);
    const pkg = await readPackageResults(layout, false);
    const problems: string[] = [];
    for (const [a, b] of pkg.conflicts) problems.push(`${at(a)} and ${at(b)}: the same key with different content`);
    const newRows = new Map<string, NewRow>();
    const alreadyThere: number[] = [];
    const names = new Set<string>();
    const shardInfo: { layout: PackageLayout; name: string; ids: Identity[] }[] = [];
    for (const [si, s] of shardLayouts.entries()) {
      const diff = describeInputDifference(pkgInputs, await inputsFingerprint(s));
      if (diff) {
        problems.push(`${s.root} was not made from the same package as ${layout.root}: its inputs differ (${diff})`);
        continue;
      }
      const ids = await readIdentities(s);
      let name = shardName(s.root, ids);
      if (names.has(name)) name = path.basename(s.root); // two copies of one shard: told apart by folder
      if (names.has(name)) throw new UsageError(`two shards would both be logged as logs/shards/${name}/; rename one copy's folder`);
      names.add(name);
      shardInfo.push({ layout: s, name, ids });
      const res = await readPackageResults(s, true);
      notes.push(...res.notes);
      for (const [a, b] of res.conflicts) problems.push(`${at(a)} and ${at(b)}: the same key with different content`);
      const rowKeys = new Set<string>();
      for (const [key, row] of res.rows) {
        rowKeys.add(key);
        const mine = pkg.rows.get(key);
        if (mine) {
          if (!sameRow(mine.values, row.values)) problems.push(`${at(mine)} and ${at(row)}: the same key with different content`);
          else alreadyThere[si] = (alreadyThere[si] ?? 0) + 1;
          continue;
        }
        const raw = res.raws.get(key);
        if (!raw) {
          problems.push(`${at(row)}: a row without its raw record (${s.rawFile(row.values.get('condition')!, row.values.get('benchmark')!)} has none for it)`);
          continue;
        }
        if (!rowMatchesRecord(row.values, raw.record!)) {
          problems.push(`${at(row)} does not say what its raw record ${at(raw)} says`);
          continue;
        }
        const pkgRaw = pkg.raws.get(key);
        if (pkgRaw && pkgRaw.digest !== raw.digest) {
          problems.push(`${at(pkgRaw)} and ${at(raw)}: the same key with different content`);
          continue;
        }
        const prev = newRows.get(key);
        if (prev) {
          if (prev.raw.digest !== raw.digest)
            problems.push(`${at(prev.row)} and ${at(row)}: the same key with different content (raw ${at(prev.raw)} vs ${at(raw)})`);
          continue;
        }
        newRows.set(key, { record: raw.record!, raw, row, shard: si, inPkgRaw: pkgRaw !== undefined });
      }
      for (const [key, raw] of res.raws) {
        if (rowKeys.has(key)) continue;
        const pkgRaw = pkg.raws.get(key);
        if (pkgRaw && pkgRaw.digest === raw.digest) continue; // PKG's own (e.g. the origin's, copied with the package)
        problems.push(
          `${at(raw)}: a raw record without its CSV row (the shard's run stopped between the two writes); ` +
            `run \`fpsweep run\` on ${s.root} once more (it completes the row at start), then merge`,
        );
      }
    }
    if (problems.length) {
      const listed = problems
        .slice(0, MAX_LISTED)
        .map((p) => `  ${p}`)
        .join('\n');
      throw new InputError(`merge refused, nothing written:\n${listed}${problems.length > MAX_LISTED ? `\n  … and ${problems.length - MAX_LISTED} more` : ''}`);
    }

    // Complete against the plan the copies ran? Otherwise refused (nothing written) unless a partial merge is asked for.
    const completeness = await mergedCompleteness(layout.root, await Promise.all(shardInfo.map((x) => readCopyRuns(x.layout.root))), (b, i, c) =>
      newRows.has(unitKey(b, i, c)),
    );
    if (completeness.left > 0 && !opts.allowPartial) return { into: layout.root, shards: [], notes, completeness, merged: false };

    // Write: run identities first (as a run does), then rows raw-then-CSV, then failure and timing lines, then logs.
    const stats: ShardMerged[] = shardInfo.map((x, i) => ({
      name: x.name,
      root: x.layout.root,
      rows: 0,
      rawRecords: 0,
      rowsCompleted: 0,
      alreadyThere: alreadyThere[i] ?? 0,
      failures: 0,
      timing: 0,
      runs: 0,
    }));
    const haveRuns = new Set((await readIdentities(layout)).map((i) => i.run_id));
    const identityFile = new AppendFile(layout.root, runIdentityFile(layout));
    for (const [i, x] of shardInfo.entries()) {
      for (const id of x.ids) {
        if (haveRuns.has(id.run_id)) continue;
        haveRuns.add(id.run_id);
        await identityFile.append(JSON.stringify({ ...(parseBoundedJson(id.line) as object), merged_from: x.name }) + '\n', true);
        stats[i].runs++;
      }
    }
    await identityFile.close();
    const crashAt = exitAfterRaw();
    let rawWritten = 0;
    const writer = resumed.writer;
    for (const n of newRows.values()) {
      const st = stats[n.shard];
      if (!n.inPkgRaw) {
        await raws.get(layout.rawFile(n.record.condition, n.record.benchmark)).append(n.raw.text! + '\n', true);
        st.rawRecords++;
        if (crashAt && ++rawWritten === crashAt) process.exit(75); // test hook: a crash between the two writes
      } else st.rowsCompleted++;
      await writer.completeRow(n.record);
      st.rows++;
    }
    await appendNewLines(
      layout.root,
      layout.failuresLog,
      shardInfo.map((x) => x.layout.failuresLog),
      (l) => failureRecordSchema.safeParse(l).success,
      (i) => stats[i].failures++,
    );
    await appendNewLines(
      layout.root,
      layout.timingLog,
      shardInfo.map((x) => x.layout.timingLog),
      (l) => timingRecordSchema.safeParse(l).success,
      (i) => stats[i].timing++,
    );
    for (const x of shardInfo) await copyLogs(x.layout, layout.root, layout.shardLogsDir(x.name));
    const mergesLog = new AppendFile(layout.root, layout.mergesLog);
    await mergesLog.append(JSON.stringify({ merge_id: mergeId, at: new Date().toISOString(), inputs: pkgInputs.digest, shards: stats }) + '\n', true);
    await mergesLog.close();
    for (const x of stats) {
      say(
        `${x.name} (${x.root}): ${x.rows} row(s) added (${x.rowsCompleted} of them completing a raw record already here), ` +
          `${x.alreadyThere} already here, ${x.failures} failure line(s), ${x.timing} timing line(s), ${x.runs} run identit${x.runs === 1 ? 'y' : 'ies'}`,
      );
    }
    return { into: layout.root, shards: stats, notes, completeness, merged: true };
  } finally {
    await raws.closeAll().catch(() => undefined);
    await closeWriter?.().catch(() => undefined);
    await lock.release().catch(() => undefined);
  }
}

/** Appends each valid line of the sources that the target does not hold already (same text), fsynced. */
async function appendNewLines(
  root: string,
  target: string,
  sources: string[],
  valid: (v: unknown) => boolean,
  counted: (source: number) => void,
): Promise<void> {
  const have = new Set((await readLines(target)).map((l) => l.trim()));
  const out = new AppendFile(root, target);
  try {
    for (const [i, src] of sources.entries()) {
      for (const line of await readLines(src)) {
        const t = line.trim();
        if (have.has(t)) continue;
        let v: unknown;
        try {
          v = parseBoundedJson(t);
        } catch {
          continue; // a torn line of the shard's log: its run sets it aside
        }
        if (!valid(v)) continue;
        have.add(t);
        await out.append(t + '\n', true);
        counted(i);
      }
    }
  } finally {
    await out.close();
  }
}

/**
 * The shard's logs/ (runner.log, vllm_gpu*.log, launch_params.txt, run_identity.jsonl) into `dest`, newest copy wins.
 * Every folder made and every file written whole through the containment module (a link in the target refused with its
 * path, or replaced when it is the file itself). The shard's side is read through folders held open from its root:
 * each folder opened O_DIRECTORY|O_NOFOLLOW, each file O_NOFOLLOW and checked a plain file on its descriptor, so a link
 * there, one swapped in after the listing included, is refused with its path, never followed (the returns never carry one).
 */
export async function copyLogs(shard: PackageLayout, root: string, dest: string): Promise<void> {
  if (!(await existsUnder(shard.root, shard.logsDir))) return;
  const src = await openDirUnder(shard.root, shard.logsDir, { create: false });
  try {
    await copyDir(src, root, dest, (name) => name === 'shards');
  } finally {
    await src.close();
  }
}

async function copyDir(from: DirHandle, root: string, to: string, skip: (name: string) => boolean = () => false): Promise<void> {
  await mkdirUnder(root, to);
  for (const name of await from.names()) {
    const st = skip(name) ? null : await from.lstat(name);
    if (!st) continue;
    if (st.isSymbolicLink()) throw new ContainmentError(from.pathOf(name), "is a symbolic link in a shard's logs: not merged");
    if (st.isDirectory()) {
      const sub = await from.sub(name, { create: false });
      try {
        await copyDir(sub, root, path.join(to, name));
      } finally {
        await sub.close();
      }
    } else if (st.isFile()) {
      const source = (await from.openRead(name)).createReadStream(); // closes its handle when ended or destroyed
      try {
        await writeStreamAtomic(root, path.join(to, name), (out) => pipeline(source, out));
      } finally {
        source.destroy();
      }
    }
  }
}

export { LockHeldError };
