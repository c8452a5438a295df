// The strict checks of a GRPO input row (SPEC-AVTIME-DATA §5, seed §5), each failure named with its rule.
import { parseEventLines, type PctEvent } from '../../events';
import type { SourceRow } from '../rowSchema';

export type RowCheck = { ok: true; events: PctEvent[] } | { ok: false; problems: string[] };

export function checkGrpoRow(row: SourceRow): RowCheck {
  const problems: string[] = [];
  if (typeof row.id !== 'string' || row.id === '') problems.push('id: missing or empty; expected a non-empty string');
  const videos = row.videos ?? [];
  if (videos.length !== 1 || videos[0] === '') problems.push(`videos: ${videos.length} video reference(s); expected exactly one non-empty video`);
  const assistants = (row.messages ?? []).filter((m) => m.role === 'assistant');
  if (assistants.length !== 1) {
    problems.push(`messages: ${assistants.length} assistant messages; expected exactly one`);
    return { ok: false, problems };
  }
  const content = assistants[0].content;
  if (typeof content !== 'string') return { ok: false, problems: [...problems, 'assistant content: not a string; expected `From XX to YY, caption` lines'] };
  const { events, warnings } = parseEventLines(content);
  for (const w of warnings)
    problems.push(
      w.reason === 'not_an_event'
        ? `assistant line ${w.line} '${w.text}': not a \`From XX to YY, caption\` line; expected only valid event lines`
        : `assistant line ${w.line} '${w.text}': start after end; expected valid event lines`,
    );
  if (events.length === 0 && warnings.length === 0) problems.push('assistant content: no event line; expected at least one `From XX to YY, caption` line');
  for (let i = 1; i < events.length; i++) {
    const [prev, cur] = [events[i - 1], events[i]];
    if (cur.start_pct < prev.start_pct)
      problems.push(`assistant line ${cur.line}: starts at ${cur.start_pct}, before line ${prev.line}'s ${prev.start_pct}; expected chronological events`);
  }
  return problems.length
    ? { ok: false, problems }
    : { ok: true, events: events.map((e) => ({ start_pct: e.start_pct, end_pct: e.end_pct, caption: e.caption })) };
}
