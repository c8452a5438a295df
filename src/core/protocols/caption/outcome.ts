// A video's outcome file (`.fpsweep-caption/videos/<stem>.json`), written whole and atomically after the video's
// last clip: completed (with the signature its captions were made under) or failed (with the reason).
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../../runner/atomicFile';
import { readTextIfExists } from '../../runner/stateRead';
import type { CaptionLayout } from './layout';
import { videoOutcomeSchema, type VideoOutcome } from './schemas';
import { parseBoundedJson } from '../../io/boundedJson';

/** The video's outcome, or null when none (or not one the schema accepts); a file that exists but cannot be read
 * is an error, never "none" (stateRead.ts). */
export async function readVideoOutcome(layout: Pick<CaptionLayout, 'root' | 'outcomeFile'>, stem: string): Promise<VideoOutcome | null> {
  const text = await readTextIfExists(layout.outcomeFile(stem));
  if (text === null) return null;
  try {
    const r = videoOutcomeSchema.safeParse(parseBoundedJson(text));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

/**
 * The stems that have an outcome file, from one listing of the outcomes folder: a status of a root of 50,000
 * videos then opens only the outcomes there are, not 50,000 files that are not there.
 */
export async function listOutcomeStems(layout: Pick<CaptionLayout, 'outcomeFile'>): Promise<Set<string>> {
  const dir = path.dirname(layout.outcomeFile('x'));
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  return new Set(names.filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -'.json'.length)));
}

export async function writeVideoOutcome(layout: Pick<CaptionLayout, 'root' | 'outcomeFile'>, outcome: VideoOutcome): Promise<void> {
  const file = layout.outcomeFile(outcome.stem);
  await writeFileAtomic(layout.root, file, JSON.stringify(videoOutcomeSchema.parse(outcome)) + '\n');
}
