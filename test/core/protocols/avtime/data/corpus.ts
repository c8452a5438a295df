// A generated corpus for the data stages' tests: every retention case, both event encodings (JSON with
// percentages or milliseconds, and the line protocol), duplicates, empty captions, unparseable assistant
// messages. Deterministic (a seeded PRNG), so a failure reproduces.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SeededRandom } from '../../../../../src/core/seededRandom';

const CAPTIONS = ['a dog barks at the gate', 'music starts as the lights dim', 'a man speaks to the camera', 'rain on a tin roof', 'a car passes by'];

type Row = Record<string, unknown>;
const sys = { role: 'system', content: 'You are a captioner.' };
const usr = { role: 'user', content: '<video>Describe the events.' };
const asst = (content: string) => ({ role: 'assistant', content });

/** One retained AVTime row of variant `k` (0..8). */
function avtimeRow(i: number, rnd: () => number): { row: Row; events: number } {
  const k = i % 9;
  const id = `avtime_${String(i).padStart(5, '0')}`;
  const durationMs = 10_000 + Math.floor(rnd() * 590_000);
  const n = 1 + Math.floor(rnd() * 9);
  const pct = () => {
    const a = rnd() * 100;
    const b = Math.min(a + rnd() * 30, 100);
    return [a, b];
  };
  const cap = (j: number) => CAPTIONS[(i + j) % CAPTIONS.length];
  const pctEvents = Array.from({ length: n }, (_, j) => {
    const [a, b] = pct();
    return { start_pct: Math.round(a * 1000) / 1000, end_pct: Math.round(b * 1000) / 1000, caption: cap(j) };
  });
  const msEvents = pctEvents.map((e) => ({
    start_ms: Math.floor((e.start_pct * durationMs) / 100),
    end_ms: Math.floor((e.end_pct * durationMs) / 100),
    caption: e.caption,
  }));
  const md: Row = { source: 'avtime', duration_ms: durationMs };
  const videos = [`videos/${id}.mp4`];
  let messages: Row[];
  switch (k) {
    case 0: // JSON array, percentages; the count from metadata
      md.event_count = n;
      messages = [sys, usr, asst(JSON.stringify(pctEvents))];
      break;
    case 1: // object with events, milliseconds
      messages = [sys, usr, asst(JSON.stringify({ events: msEvents }))];
      break;
    case 2: // prose + two fenced blocks: the last one counts
      messages = [
        sys,
        usr,
        asst(`Here:\n\`\`\`json\n[{"start_pct": 1, "end_pct": 2, "caption": "x"}]\n\`\`\`\nbetter:\n\`\`\`json\n${JSON.stringify(pctEvents)}\n\`\`\` done`),
      ];
      break;
    case 3: // the latest assistant is unparseable: the earlier one holds the list
      messages = [sys, usr, asst(JSON.stringify(msEvents)), usr, asst('Sorry, I cannot see the video.'), asst('```json\nnot json\n```')];
      break;
    case 4: {
      // line protocol with a duplicate, a reversed line and prose
      md.event_count = n;
      const lines = pctEvents.map(
        (e) => `From ${String(Math.floor(e.start_pct)).padStart(2, '0')} to ${String(Math.min(Math.ceil(e.end_pct), 99)).padStart(2, '0')}, ${e.caption}`,
      );
      messages = [sys, usr, asst(['Events:', ...lines, lines[0], 'From 50 to 40, reversed', ''].join('\n'))];
      break;
    }
    case 5: // messy JSON: empty and spaced captions, duplicates, a non-object, a missing time, out-of-range times
      messages = [
        sys,
        usr,
        asst(
          JSON.stringify([
            ...pctEvents,
            pctEvents[0],
            { start_pct: 3, end_pct: 9, caption: '' },
            { start_pct: 3, end_pct: 9, caption: ' \t\n' },
            { start_pct: 4, end_pct: 8, caption: '  a  spaced\ncaption ' },
            'not an event',
            { start_pct: 5, caption: 'no end' },
            { start_pct: -4.5, end_pct: 140, caption: 'all of it' },
            { start_pct: 60, end_pct: 20, caption: 'reversed' },
            { start_ms: 0, end_ms: durationMs, caption: 'whole video in ms' },
            { start_pct: '10', end_pct: '20', caption: 'strings' },
          ]),
        ),
      ];
      break;
    case 6: // unparseable assistant only: split counts from metadata, SFT skips it
      md.event_count = n;
      messages = [sys, usr, asst('I am not able to describe this video.')];
      break;
    case 7: // no source label, avtime_ id; duration in seconds; input_video beside videos[0]
      delete md.source;
      delete md.duration_ms;
      md.duration_sec = Math.round(durationMs) / 1000 + 0.0004;
      md.input_video = `/abs/${id}.mp4`;
      messages = [sys, usr, asst(JSON.stringify(pctEvents))];
      break;
    default: // every caption empty: a list for the split, no event for SFT
      messages = [sys, usr, asst(JSON.stringify(pctEvents.map((e) => ({ ...e, caption: '' }))))];
      break;
  }
  const events = k === 5 ? pctEvents.length + 11 : n;
  return { row: { id, videos, messages, metadata: md }, events };
}

export interface Corpus {
  dir: string;
  source: string;
  retained: number;
  frozenIds: string;
  longvale: string;
  sftExtras: string;
  benchRoot: string;
}

export function makeCorpus(retained = 360): Corpus {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'avtime-data-'));
  const random = new SeededRandom(20261204); // mulberry32, as everywhere (core/seededRandom.ts)
  const rnd = () => random.next();
  const lines: string[] = [];
  let r = 0;
  for (let i = 0; r < retained; i++) {
    if (i % 23 === 5)
      lines.push(JSON.stringify({ id: `lv_${i}`, videos: [`v/lv_${i}.mp4`], messages: [], metadata: { source: 'longvale', duration_ms: 1000 } }));
    else if (i % 29 === 7)
      lines.push(JSON.stringify({ id: `clip_${i}`, videos: [`v/c_${i}.mp4`], messages: [], metadata: {} })); // unknown unlabeled
    else if (i % 31 === 3)
      lines.push(JSON.stringify({ id: `AVTIME_${i}`, videos: [`v/u_${i}.mp4`] })); // not the namespace: unknown
    else if (i % 37 === 11)
      lines.push(JSON.stringify({ id: `avtime_x${i}`, videos: [], metadata: { source: 'other' } })); // labelled other
    else {
      lines.push(JSON.stringify(avtimeRow(r, rnd).row));
      r++;
    }
    if (i % 41 === 13) lines.push('   '); // a blank line is not a record
  }
  // A line whose exact text is not JSON.stringify's: the split copies it as it was.
  lines.push(
    '{"id": "avtime_spaced", "videos": ["videos/spaced.mp4"],  "metadata": {"source": "avtime", "duration_ms": 61000, "event_count": 2}, "note": "é\\u00e9"}',
  );
  const source = path.join(dir, 'all.jsonl');
  fs.writeFileSync(source, lines.join('\n') + '\n');
  const frozenIds = path.join(dir, 'frozen_ids.jsonl');
  fs.writeFileSync(frozenIds, [5, 17, 40, 77, 123, 200, 301].map((i) => JSON.stringify({ id: `avtime_${String(i).padStart(5, '0')}` }) + '\n').join(''));

  const lv: string[] = [];
  for (let i = 0; i < 24; i++) {
    const md = { source: 'longvale', duration_ms: 30_000 + i * 1000 };
    const content =
      i % 6 === 5
        ? 'no events here'
        : i % 4 === 3
          ? JSON.stringify([{ start_pct: i, end_pct: i + 10.5, caption: `json ${i}` }])
          : `From ${String(i).padStart(2, '0')} to ${String(i + 20).padStart(2, '0')}, speech ${i}\nFrom 00 to 05, intro\nFrom 00 to 05, intro`;
    lv.push(JSON.stringify({ id: `longvale_${i}`, videos: [`lv/${i}.mp4`], messages: [sys, usr, asst(content)], metadata: md }));
  }
  const longvale = path.join(dir, 'longvale.jsonl');
  fs.writeFileSync(longvale, lv.join('\n') + '\n');
  const extras = [
    { id: 'avtime_novideo', videos: [], messages: [asst('From 00 to 10, x')], metadata: { duration_ms: 5000 } },
    { id: 'avtime_noduration', videos: ['v/nd.mp4'], messages: [asst('From 00 to 10, x')], metadata: {} },
  ];
  const sftExtras = path.join(dir, 'extras.jsonl');
  fs.writeFileSync(sftExtras, extras.map((e) => JSON.stringify(e) + '\n').join(''));
  const benchRoot = path.join(dir, 'bench');
  fs.mkdirSync(path.join(benchRoot, 'prompts'), { recursive: true });
  fs.writeFileSync(path.join(benchRoot, 'prompts', 'target.txt'), 'Find every event.\nAnswer `From XX to YY, caption` lines.\n');
  fs.writeFileSync(path.join(benchRoot, 'prompts', 'system.txt'), 'You are a helpful assistant.');
  return { dir, source, retained: retained + 1, frozenIds, longvale, sftExtras, benchRoot };
}
