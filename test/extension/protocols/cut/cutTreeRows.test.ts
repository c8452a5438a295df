// The cut run type's tree rows (issue 27 point 6): an output root with its source videos grouped by state, failed
// first with their reasons, a degraded cut said on its video's row and on the root's row, the generic Start, Stop
// and Report on the root's row (`cutRun` / `cutRun.live`), and a long group cut to MAX_VIDEO_ROWS.
import * as assert from 'node:assert/strict';
import type { CutProgressDetail, CutVideoEntry } from '../../../../src/core/protocols/cut/progressTypes';
import { cutRootRow, cutSection, type CutSnapshot } from '../../../../src/extension/protocols/cut/cutTreeRows';
import { MAX_VIDEO_ROWS } from '../../../../src/extension/videoStateRows';

const video = (stem: string, state: CutVideoEntry['state'], extra: Partial<CutVideoEntry> = {}): CutVideoEntry => ({
  stem,
  source: `${stem}.mp4`,
  state,
  segments: state === 'completed' ? 4 : 0,
  degraded: [],
  reason: null,
  cutter: 'builtin',
  changed: false,
  rank: null,
  ...extra,
});

function snapshot(videos: CutVideoEntry[], live = false): CutSnapshot {
  const count = (s: string) => videos.filter((v) => v.state === s).length;
  const detail: CutProgressDetail = {
    root: '/data/clips',
    inputRoot: '/data/videos',
    total: videos.length,
    completed: count('completed'),
    running: count('running'),
    failed: count('failed'),
    pending: count('pending'),
    degraded: videos.filter((v) => v.state === 'completed' && v.degraded.length).length,
    videos,
    ranks: [{ rank: 0, of: 1, runId: 'r1', live }],
  };
  return { protocol: 'cut', root: '/data/clips', runId: 'r1', live, state: live ? 'running' : 'failed', summary: null, groups: [], detail };
}

describe('cut tree rows (issue 27 point 6)', () => {
  const videos = [
    video('a', 'completed', { degraded: ['asr', 'audio_events'] }),
    video('b', 'failed', { reason: 'cutter exit 1: no such file avcut.py' }),
    video('c', 'running'),
    video('d', 'pending', { changed: true }),
    video('e', 'completed', { cutter: 'avcut.py' }),
  ];

  it('shows the output root with its counts and its videos by state, failed first with the reason', () => {
    const row = cutRootRow(snapshot(videos));
    assert.equal(row.label, 'Cuts clips');
    assert.deepEqual(
      row.children.map((g) => [g.label, g.icon, g.collapsible, g.children.map((v) => `${v.label}: ${v.description}`)]),
      [
        ['1 failed', 'failed', 'expanded', ['b: cutter exit 1: no such file avcut.py']],
        ['1 running', 'running', 'collapsed', ['c: builtin']],
        ['1 pending', 'todo', 'collapsed', ['d: source changed: cut again · builtin']],
        ['2 completed', 'done', 'collapsed', ['a: 4 segments · degraded (no asr, audio_events) · builtin', 'e: 4 segments · avcut.py']],
      ],
    );
    assert.match(row.tooltip ?? '', /from \/data\/videos/);
  });

  it('says degraded on the root when any cut is, and on each degraded video’s row and tooltip', () => {
    const row = cutRootRow(snapshot(videos));
    assert.equal(row.description, 'failed · degraded · 2 completed (1 degraded), 1 running, 1 failed, 1 pending');
    assert.match(row.aria ?? '', /degraded/);
    assert.match(row.tooltip ?? '', /1 degraded cut: a detector unavailable/);
    const a = row.children.flatMap((g) => g.children).find((v) => v.label === 'a')!;
    assert.match(a.tooltip ?? '', /degraded \(no asr, audio_events\)/);
    const clean = cutRootRow(snapshot([video('e', 'completed', { cutter: 'avcut.py' })]));
    assert.doesNotMatch(`${clean.description} ${clean.tooltip}`, /degraded/);
  });

  it('its root row is a run row (generic Start, Report; Stop while live), its completed videos open in the caption viewer', () => {
    assert.equal(cutRootRow(snapshot(videos)).contextValue, 'cutRun');
    const live = cutRootRow(snapshot(videos, true));
    assert.equal(live.contextValue, 'cutRun.live');
    assert.match(live.description ?? '', /^running \(live\)/);
    const rows = live.children.flatMap((g) => g.children);
    assert.deepEqual(
      rows.map((r) => [r.label, r.contextValue, r.root, r.data]),
      [
        ['b', 'cutVideo.uncut', '/data/clips', { stem: 'b' }],
        ['c', 'cutVideo.uncut', '/data/clips', { stem: 'c' }],
        ['d', 'cutVideo.uncut', '/data/clips', { stem: 'd' }],
        ['a', 'cutVideo', '/data/clips', { stem: 'a' }],
        ['e', 'cutVideo', '/data/clips', { stem: 'e' }],
      ],
    );
  });

  it('cuts a long group to MAX_VIDEO_ROWS rows and says how many more, with unique ids', () => {
    const many = Array.from({ length: MAX_VIDEO_ROWS + 7 }, (_, i) => video(`v${String(i).padStart(4, '0')}`, 'pending'));
    const [group] = cutRootRow(snapshot(many)).children;
    assert.equal(group.label, `${MAX_VIDEO_ROWS + 7} pending`);
    assert.equal(group.children.length, MAX_VIDEO_ROWS + 1);
    assert.equal(group.children.at(-1)!.label, '… and 7 more');
    assert.equal(new Set(group.children.map((r) => r.id)).size, group.children.length);
  });

  it('a section counts its output roots', () => {
    const s = cutSection([snapshot(videos), { ...snapshot([]), root: '/data/other' }], { id: 'cut', title: 'Cuts' });
    assert.equal(s.runs, 2);
    assert.equal(s.description, '2 output roots');
  });
});
