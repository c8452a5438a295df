// fpsweep prepare --package DIR [--delete-shards] [--jobs N]   (seed §3)
import { fpPackageRoot, numberFlag, parseVerbArgs, requirePackage, type OptionSpec } from '../../core/cli/options';
import { prepare, type PrepareResult } from '../../core/protocols/fp/prepare/prepare';
import { formatBytes, formatProgress } from '../../core/protocols/fp/prepare/progressMeter';

export const summary = 'verify shard sha256s, extract into data/store/normalized, count videos';

const HELP = `usage: fpsweep prepare --package DIR [--delete-shards] [--jobs N] [--json]

Verifies every videos/videos_*.tar against videos/videos_manifest.json (sha256, streamed; a shard
verified before is not hashed again unless its size or mtime changed), checks free disk, extracts
into data/store/normalized through a staging folder (a shard holds files and folders only, SPEC §1:
absolute paths, '..' and every link are refused, and a refused shard leaves nothing in the store),
and counts the videos against n_videos.
Exit: 0 prepared; 1 not prepared (a shard missing, damaged or refused, each named with why); 2 bad usage.
--delete-shards  delete the shards that were verified and extracted
--jobs N         shards hashed at once (default min(4, cores))

Rerun: says it is done ("0 extracted now": shards verified before are not hashed again) and exits 0.`;

export function formatPrepare(r: PrepareResult, packageDir: string): string {
  const lines: string[] = [];
  for (const s of r.shards) {
    const ext = s.extracted === 'now' ? 'extracted' : s.extracted === 'before' ? 'extracted earlier' : 'not extracted';
    lines.push(
      `${s.status === 'verified' || s.status === 'cached' || s.status === 'deleted_after_extract' ? 'ok  ' : 'FAIL'} ${s.file}  ${s.status}, ${ext}` +
        `${s.deleted ? ', deleted' : ''}${s.message ? `  — ${s.message}` : ''}`,
    );
  }
  if (r.disk.freeBytes !== null)
    lines.push(`disk: ${formatBytes(r.disk.neededBytes)} needed, ${formatBytes(r.disk.freeBytes)} free${r.disk.ok ? '' : ' — NOT ENOUGH'}`);
  if (r.count) {
    lines.push(`videos: ${r.count.videos} of n_videos = ${r.nVideosExpected}`);
    if (r.count.missing.length) {
      lines.push(`manifest videos without a folder: ${r.count.missing.length} (their items will be logged as no_video failures)`);
      for (const m of r.count.missing.slice(0, 20)) lines.push(`  ${m.hash}  ${m.refs.map((x) => `${x.benchmark}/${x.video_id}`).join(', ')}`);
      if (r.count.missing.length > 20) lines.push(`  … ${r.count.missing.length - 20} more (--json lists all)`);
    }
  }
  for (const w of r.warnings) lines.push(`warn: ${w}`);
  for (const e of r.errors) lines.push(`error: ${e}`);
  if (r.deletable.length) {
    const bytes = r.deletable.reduce((a, d) => a + d.bytes, 0);
    lines.push(
      `${r.deletable.length} verified, extracted shard(s) (${formatBytes(bytes)}) can be deleted: fpsweep prepare --package ${packageDir} --delete-shards`,
    );
  }
  const extractedNow = r.shards.filter((s) => s.extracted === 'now').length;
  const failed = r.shards.filter((s) => !['verified', 'cached', 'deleted_after_extract'].includes(s.status)).length;
  lines.push(
    `${r.ok ? 'prepared' : 'NOT prepared'}: ${r.shards.length} shard(s), ${failed} failed, ${extractedNow} extracted now; ` +
      `${r.count ? `${r.count.videos} of ${r.nVideosExpected} videos` : 'videos not counted'}` +
      `${r.shards.some((s) => s.deleted) ? `; ${r.shards.filter((s) => s.deleted).length} shard(s) deleted` : ''}`,
  );
  return lines.join('\n');
}

export const flags = {
  package: { type: 'string', short: 'p', meta: 'DIR', value: { kind: 'path', is: 'dir', env: 'FPSWEEP_PACKAGE', root: fpPackageRoot } },
  'delete-shards': { type: 'boolean' },
  jobs: { type: 'string', meta: 'N', value: { kind: 'int', min: 1, max: 1024, env: 'PREPARE_JOBS' } },
  json: { type: 'boolean' },
} satisfies OptionSpec;

export async function run(args: string[]): Promise<number> {
  const v = parseVerbArgs(args, flags, HELP);
  const packageDir = requirePackage(v, HELP, fpPackageRoot);
  const tty = process.stderr.isTTY;
  const r = await prepare({
    packageDir,
    deleteShards: v['delete-shards'] === true,
    concurrency: numberFlag(v, 'jobs'),
    onProgress: (p) => process.stderr.write(tty ? `\r${formatProgress(p)}\x1b[K` : `${formatProgress(p)}\n`),
    onMessage: (l) => process.stderr.write(`${tty ? '\r\x1b[K' : ''}${l}\n`),
  });
  if (tty) process.stderr.write('\r\x1b[K');
  process.stdout.write(v.json ? JSON.stringify(r, null, 1) + '\n' : formatPrepare(r, packageDir) + '\n');
  return r.ok ? 0 : 1;
}
