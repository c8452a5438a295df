// What a caption or cut run leaves, per video, in a form two runs can be compared by (issue 43's cancel + requeue
// against one uncancelled run): each video's state and its published files' contents.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CaptionLayout } from '../../src/core/protocols/caption/layout';
import { readVideoOutcome } from '../../src/core/protocols/caption/outcome';
import { CutLayout } from '../../src/core/protocols/cut/layout';
import { readVideoState } from '../../src/core/protocols/cut/videoState';

const textOr = (f: string) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : null);

/** Each video's outcome state ('none': no outcome) and its captions_merged.json (null: none). */
export async function captionOutcomes(root: string, stems: readonly string[]): Promise<Record<string, { state: string; captions: string | null }>> {
  const layout = new CaptionLayout(root);
  const out: Record<string, { state: string; captions: string | null }> = {};
  for (const stem of stems) out[stem] = { state: (await readVideoOutcome(layout, stem))?.state ?? 'none', captions: textOr(layout.captionsFile(stem)) };
  return out;
}

/** Each video's cut state ('none': no state), its published segments.json and its clips' names. */
export async function cutOutcomes(out: string, stems: readonly string[]): Promise<Record<string, { state: string; segments: string | null; clips: string[] }>> {
  const layout = new CutLayout(out);
  const r: Record<string, { state: string; segments: string | null; clips: string[] }> = {};
  for (const stem of stems) {
    const dir = layout.finalDir(stem);
    const clips = path.join(dir, 'clips');
    r[stem] = {
      state: (await readVideoState(layout, stem))?.state ?? 'none',
      segments: textOr(path.join(dir, 'segments.json')),
      clips: fs.existsSync(clips) ? fs.readdirSync(clips).sort() : [],
    };
  }
  return r;
}
