// Stage 1, target inputs (SPEC-AVTIME §2): test.jsonl × inventory.jsonl → target_inputs.jsonl, one line per
// test row in test order, the assistant (reference) message removed; every media file holds a video and an
// audio stream (ffprobe). Every rule fails closed: all problems are collected with file:line, and nothing is
// written unless there are none (temp + rename, report last).
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { InputError, formatLineProblem, type LineProblem } from '../../../errors';
import { parseJsonlText } from '../../../package/jsonl';
import { sha256Text, sha256File, writeFileAtomic, jsonlText } from './files';
import { inventoryRowSchema, testRowSchema, type InventoryRow, type TargetInput } from './inputSchemas';
import { ffprobeStreams, mediaStreamProblems, type MediaRef, type ProbeStreams } from './mediaStreams';

export interface TargetInputsReport {
  created_at: string;
  counts: { test_rows: number; inventory_rows: number; target_inputs: number; assistant_messages_removed: number };
  inputs: { test: { path: string; sha256: string }; inventory: { path: string; sha256: string } };
  output: { path: string; sha256: string };
}

export interface BuiltTargetInputs {
  rows: TargetInput[];
  text: string;
  report: TargetInputsReport;
}

const MESSAGE_KEYS = new Set(['role', 'content']);
const MAX_SHOWN = 30;

/** The first MAX_SHOWN problems, and every media file without a stream however many there are (SPEC-AVTIME §2). */
export class TargetInputsError extends InputError {
  constructor(
    readonly problems: LineProblem[],
    listAll: ReadonlySet<LineProblem> = new Set(),
  ) {
    const shown = problems.filter((p, i) => i < MAX_SHOWN || listAll.has(p));
    super(
      `target inputs not built (${problems.length} problem${problems.length === 1 ? '' : 's'}; nothing written):\n` +
        shown.map((p) => `  ${formatLineProblem(p)}`).join('\n') +
        (problems.length > shown.length ? `\n  (+${problems.length - shown.length} more)` : ''),
    );
    this.name = 'TargetInputsError';
  }
}

async function statFile(p: string): Promise<boolean> {
  return fs.stat(p).then(
    (st) => st.isFile(),
    () => false,
  );
}

/**
 * Checks and builds in memory; throws TargetInputsError listing every problem (every media file without a video
 * or an audio stream among them, on its test line). Writes nothing.
 */
export async function buildTargetInputs(
  testFile: string,
  inventoryFile: string,
  outputPath: string,
  probe: ProbeStreams = ffprobeStreams,
): Promise<BuiltTargetInputs> {
  const [testText, invText] = await Promise.all([readInput(testFile), readInput(inventoryFile)]);
  const problems: LineProblem[] = [];
  const test = parseJsonlText(testText, testFile, testRowSchema, { expected: 'a test row {"id", "videos", "messages", "metadata": {"video_id"}}' });
  const inv = parseJsonlText(invText, inventoryFile, inventoryRowSchema, {
    expected: 'an inventory row {"stable_id", "video_id", "duration_ms", "sha256", "resolved_media_path"}',
  });
  problems.push(...test.problems, ...inv.problems);

  // Inventory: unique stable_id and video_id, an absolute media path that exists.
  const byVideo = new Map<string, { row: InventoryRow; line: number }>();
  const stableAt = new Map<string, number>();
  const mediaThere = new Set<string>();
  for (const { line, value } of inv.records) {
    const at = (message: string) => problems.push({ file: inventoryFile, line, message });
    const s = stableAt.get(value.stable_id);
    if (s !== undefined) at(`duplicate stable_id '${value.stable_id}' (first on line ${s}); stable ids must be unique`);
    else stableAt.set(value.stable_id, line);
    const v = byVideo.get(value.video_id);
    if (v) at(`duplicate video_id '${value.video_id}' (first on line ${v.line}); video ids must be unique`);
    else byVideo.set(value.video_id, { row: value, line });
    const p = value.resolved_media_path;
    if (!path.isAbsolute(p)) at(`resolved_media_path '${p}' is relative; it must be an absolute path`);
    else if (!(await statFile(p))) at(`resolved_media_path '${p}' does not exist (or is not a file)`);
    else mediaThere.add(p);
  }

  // Test rows: unique id and video_id, exactly one system + one user message (+ at most one assistant),
  // no key but role/content in a message, a matching inventory row.
  const rows: TargetInput[] = [];
  const idAt = new Map<string, number>();
  const videoAt = new Map<string, number>();
  const used = new Set<string>();
  const media: MediaRef[] = [];
  let removed = 0;
  const lines = testText.split('\n');
  for (const { line, value } of test.records) {
    const at = (message: string) => problems.push({ file: testFile, line, message });
    const i = idAt.get(value.id);
    if (i !== undefined) at(`duplicate id '${value.id}' (first on line ${i})`);
    else idAt.set(value.id, line);
    const vid = value.metadata.video_id;
    const v = videoAt.get(vid);
    if (v !== undefined) at(`duplicate metadata.video_id '${vid}' (first on line ${v}); video ids must be unique`);
    else videoAt.set(vid, line);
    let ok = true;
    value.messages.forEach((m, k) => {
      const extra = Object.keys(m).filter((key) => !MESSAGE_KEYS.has(key));
      if (extra.length) {
        ok = false;
        at(`messages[${k}] has key(s) ${extra.map((e) => `'${e}'`).join(', ')}; a message holds only 'role' and 'content'`);
      }
    });
    const roles = value.messages.map((m) => m.role);
    const count = (r: string) => roles.filter((x) => x === r).length;
    const other = roles.filter((r) => r !== 'system' && r !== 'user' && r !== 'assistant');
    if (count('system') !== 1 || count('user') !== 1 || count('assistant') > 1 || other.length) {
      ok = false;
      at(
        `messages have roles [${roles.map((r) => JSON.stringify(r)).join(', ')}]; expected exactly one system and one user message (and at most one assistant)`,
      );
    }
    const invRow = byVideo.get(vid);
    if (!invRow) {
      at(`no inventory row has video_id '${vid}' (${inventoryFile})`);
      continue;
    }
    used.add(vid);
    const mediaPath = invRow.row.resolved_media_path;
    if (mediaThere.has(mediaPath)) media.push({ file: testFile, line, media: mediaPath, context: `video_id '${vid}', ${inventoryFile}:${invRow.line}` });
    if (!ok) continue;
    const system = value.messages.find((m) => m.role === 'system')!;
    const user = value.messages.find((m) => m.role === 'user')!;
    if (count('assistant')) removed++;
    let raw = lines[line - 1];
    if (raw.endsWith('\r')) raw = raw.slice(0, -1);
    if (line === 1 && raw.charCodeAt(0) === 0xfeff) raw = raw.slice(1);
    rows.push({
      id: value.id,
      videos: [invRow.row.resolved_media_path],
      messages: [
        { role: 'system', content: system.content },
        { role: 'user', content: user.content },
      ],
      metadata: {
        video_id: vid,
        stable_id: invRow.row.stable_id,
        duration_ms: invRow.row.duration_ms,
        media_sha256: invRow.row.sha256,
        test_row_sha256: sha256Text(raw),
      },
    });
  }
  for (const [vid, { line }] of byVideo) {
    if (!used.has(vid))
      problems.push({ file: inventoryFile, line, message: `inventory row video_id '${vid}' is used by no test row (${testFile}); coverage must be exact` });
  }
  if (!test.records.length && !test.problems.length) problems.push({ file: testFile, line: 1, message: 'no test rows' });
  const mediaProblems = await mediaStreamProblems(media, probe);
  problems.push(...mediaProblems);
  if (problems.length)
    throw new TargetInputsError(
      problems.sort((a, b) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1)),
      new Set(mediaProblems),
    );

  const text = jsonlText(rows);
  const report: TargetInputsReport = {
    created_at: new Date().toISOString(),
    counts: { test_rows: test.records.length, inventory_rows: inv.records.length, target_inputs: rows.length, assistant_messages_removed: removed },
    inputs: { test: { path: testFile, sha256: sha256Text(testText) }, inventory: { path: inventoryFile, sha256: sha256Text(invText) } },
    output: { path: outputPath, sha256: sha256Text(text) },
  };
  return { rows, text, report };
}

async function readInput(file: string): Promise<string> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new InputError(`${file} does not exist (a bench root holds test.jsonl and inventory.jsonl)`);
    throw err;
  }
}

/** Writes the built inputs: target_inputs first, then each report (so a report never names an absent output).
 * Paths the user named (--output, the bench root): each in its own folder, the folder being the root. */
export async function writeTargetInputs(built: BuiltTargetInputs, outputPath: string, reportPaths: readonly string[]): Promise<void> {
  await writeFileAtomic(path.dirname(outputPath), outputPath, built.text);
  for (const r of reportPaths) await writeFileAtomic(path.dirname(r), r, JSON.stringify(built.report, null, 1) + '\n');
}

export { sha256File };
