// The caption run type's tree rows (issue 25 point 8): a videos root with its videos grouped by state, failed first
// with their reasons, counts in words, Stop offered only on a live root, and a long group cut to MAX_VIDEO_ROWS.
import * as assert from 'node:assert/strict';
import type { CaptionProgressDetail, CaptionVideoEntry } from '../../../../src/core/protocols/caption/progressTypes';
import type { ProgressSnapshot } from '../../../../src/core/protocols/types';
import { captionRootRow, captionSection, MAX_VIDEO_ROWS } from '../../../../src/extension/protocols/caption/captionTreeRows';

const video = (stem: string, state: CaptionVideoEntry['state'], extra: Partial<CaptionVideoEntry> = {}): CaptionVideoEntry => ({
  stem,
  state,
  clips: 3,
  clipsDone: state === 'completed' ? 3 : 0,
  reason: null,
  rank: null,
  ...extra,
});

function snapshot(videos: CaptionVideoEntry[], live = false, refused: CaptionProgressDetail['refused'] = undefined): ProgressSnapshot<CaptionProgressDetail> {
  const count = (s: string) => videos.filter((v) => v.state === s).length;
  return {
    protocol: 'caption',
    root: '/data/videos',
    runId: 'r1',
    live,
    state: live ? 'running' : 'failed',
    summary: null,
    groups: [],
    detail: {
      root: '/data/videos',
      total: videos.length,
      completed: count('completed'),
      running: count('running'),
      failed: count('failed'),
      pending: count('pending'),
      untracked: ['notes'],
      ...(refused ? { refused } : {}),
      videos,
      ranks: [],
    },
  };
}

describe('caption tree rows (issue 25 point 8)', () => {
  const videos = [
    video('a', 'completed'),
    video('b', 'failed', { reason: 'segment 2: clip-duration: clips/clip_0002.mp4 lasts 3 s' }),
    video('c', 'running', { clipsDone: 1 }),
    video('d', 'pending', { clips: null }),
  ];

  it('a refused directory (a symbolic link, issue 33) is a group of its own, first, each with its reason', () => {
    const reason = 'a symbolic link (-> /elsewhere): a video directory must be a folder of the root itself, never a link; replace it by the folder';
    const row = captionRootRow(snapshot(videos, false, [{ name: 'linked', reason }]));
    assert.equal(row.description, 'failed · 1 completed, 1 running, 1 failed, 1 pending (1 untracked, 1 refused)');
    const group = row.children[0];
    assert.deepEqual([group.label, group.icon, group.collapsible], ['1 refused', 'failed', 'expanded']);
    assert.deepEqual(
      group.children.map((r) => [r.label, r.description]),
      [['linked', reason]],
    );
  });

  it('shows the root with its counts and its videos grouped by state, failed first with the reason', () => {
    const row = captionRootRow(snapshot(videos));
    assert.equal(row.label, 'Captions videos');
    assert.equal(row.description, 'failed · 1 completed, 1 running, 1 failed, 1 pending (1 untracked)');
    assert.deepEqual(
      row.children.map((g) => [g.label, g.icon, g.collapsible, g.children.map((v) => `${v.label}: ${v.description}`)]),
      [
        ['1 failed', 'failed', 'expanded', ['b: segment 2: clip-duration: clips/clip_0002.mp4 lasts 3 s']],
        ['1 running', 'running', 'collapsed', ['c: 1/3 clips']],
        ['1 pending', 'todo', 'collapsed', ['d: not started']],
        ['1 completed', 'done', 'collapsed', ['a: 3 clips']],
      ],
    );
    const b = row.children[0].children[0];
    assert.equal(b.contextValue, 'captionVideo');
    assert.deepEqual(b.data, { stem: 'b' });
    assert.equal(b.root, '/data/videos');
  });

  it('offers Stop on a live root only', () => {
    assert.equal(captionRootRow(snapshot(videos, true)).contextValue, 'captionRoot.live');
    assert.equal(captionRootRow(snapshot(videos, false)).contextValue, 'captionRoot');
  });

  it('cuts a long group to MAX_VIDEO_ROWS rows and says how many more, with unique ids', () => {
    const many = Array.from({ length: MAX_VIDEO_ROWS + 5 }, (_, i) => video(`v${String(i).padStart(4, '0')}`, 'pending'));
    const row = captionRootRow(snapshot(many));
    const pending = row.children[0];
    assert.equal(pending.label, `${MAX_VIDEO_ROWS + 5} pending`);
    assert.equal(pending.children.length, MAX_VIDEO_ROWS + 1);
    assert.equal(pending.children[MAX_VIDEO_ROWS].label, '… and 5 more');
    const ids = pending.children.map((c) => c.id);
    assert.equal(new Set(ids).size, ids.length);
  });

  it('a section counts its videos roots', () => {
    const s = captionSection([snapshot(videos)], { id: 'caption', title: 'AVTime captions' });
    assert.equal(s.runs, 1);
    assert.equal(s.description, '1 videos root');
    assert.equal(s.rows.length, 1);
  });
});
