// The fail-fast monitor: fed every request outcome and every job's preparation outcome, it says when the
// run is failing systematically (the same refusal again and again) so the runner stops instead of
// writing its whole plan into failures.jsonl. Pure: no I/O, no clock; the runner acts on a trip.
// Rules (each off with 0):
//   same_in_a_row   K requests in a row on one server failed with the same kind and the same message
//                   once digits, paths, URLs and ids are normalised away;
//   first_requests  more than half of the run's first N requests failed (decided as soon as it is
//                   certain: at floor(N/2) + 1 failures among the first N);
//   decode          the first M jobs that needed preparation all failed it (FP: videos that needed frames,
//                   every request of each a `decode` failure) and none has been prepared yet; the words are
//                   the run type's (PrepWords), the rule's id stays 'decode' (status files and reports carry it).
// A predicted context refusal (SPEC §2.5, the plan knows it) is an expected answer, not a failure: it
// is ignored by every rule.

export interface FailFastSettings {
  /** K: identical failures in a row on one server. */
  sameInARow: number;
  /** N: the first requests of the run, of which most failing stops it. */
  firstRequests: number;
  /** M: the first jobs that needed preparation (FP: videos with frames), all failing it, stop it. */
  firstPrepared: number;
}

export const DEFAULT_FAIL_FAST: FailFastSettings = { sameInARow: 20, firstRequests: 40, firstPrepared: 5 };

/** The preparation rule in the run type's words: `the first M <jobs> all <failed> and <noneOk>`; `kind`: its failures' kind. */
export interface PrepWords {
  jobs: string;
  failed: string;
  noneOk: string;
  kind: string;
}

/** The engine's own words, for a run type that gives none. */
export const PREP_WORDS: PrepWords = { jobs: 'jobs', failed: 'failed their preparation', noneOk: 'none was prepared', kind: 'prepare' };

export type RequestOutcome =
  { server: number; ok: true } | { server: number; ok: false; kind: string; message: string; status?: number | null; expected?: boolean };

export type PrepOutcome = { ok: true } | { ok: false; message: string };

export type TripRule = 'same_in_a_row' | 'first_requests' | 'decode';

export interface Trip {
  rule: TripRule;
  /** Failure kind (SPEC §4) of the failures that tripped it. */
  kind: string;
  /** The server's (or decoder's) own words: the latest message of the tripping signature. */
  message: string;
  /** HTTP status of that message, when a server answered. */
  status: number | null;
  /** Server index (same_in_a_row), else the one that sent the latest message; null for decode. */
  server: number | null;
  /** How many outcomes made the decision (e.g. K, or the failures among the first N). */
  count: number;
  /** One line: which rule, with its numbers. */
  detail: string;
}

/** The message with what varies per request taken out: URLs, paths, ids, numbers. */
export function normalizeMessage(message: string): string {
  return message
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/\S*/gi, '<url>')
    .replace(/data:[^\s,]*,\S*/gi, '<url>')
    .replace(/(^|[\s'"`(=:])(?:~|\.{1,2})?\/[^\s'"`),]*/g, '$1<path>')
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<id>')
    .replace(/\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, '<id>')
    .replace(/\d+(?:\.\d+)?/g, '<n>')
    .replace(/\s+/g, ' ')
    .trim();
}

function signature(kind: string, message: string): string {
  return `${kind}\u0000${normalizeMessage(message)}`;
}

interface Streak {
  sig: string;
  n: number;
}

export class FailFastMonitor {
  private readonly streaks = new Map<number, Streak>();
  private counted = 0;
  private failedEarly = 0;
  /** Among the first N failures: signature → count and latest failure. */
  private readonly earlySigs = new Map<string, { n: number; last: Extract<RequestOutcome, { ok: false }> }>();
  private prepSeen = 0;
  private anyPrepared = false;
  private lastPrepMessage = '';
  private trip: Trip | null = null;

  constructor(
    readonly settings: FailFastSettings = DEFAULT_FAIL_FAST,
    private readonly words: PrepWords = PREP_WORDS,
  ) {}

  get tripped(): Trip | null {
    return this.trip;
  }

  /** One request's outcome (a re-queued attempt counts as a failure of its own). */
  request(o: RequestOutcome): Trip | null {
    if (this.trip) return this.trip;
    if (!o.ok && o.expected) return null;
    const { sameInARow: K, firstRequests: N } = this.settings;
    if (N > 0 && this.counted < N) {
      this.counted++;
      if (!o.ok) {
        this.failedEarly++;
        const sig = signature(o.kind, o.message);
        const e = this.earlySigs.get(sig);
        this.earlySigs.set(sig, { n: (e?.n ?? 0) + 1, last: o });
        if (this.failedEarly >= Math.floor(N / 2) + 1) {
          // The commonest failure among them speaks for the run.
          const top = [...this.earlySigs.values()].sort((a, b) => b.n - a.n)[0];
          return (this.trip = {
            rule: 'first_requests',
            kind: top.last.kind,
            message: top.last.message,
            status: top.last.status ?? null,
            server: top.last.server,
            count: this.failedEarly,
            detail:
              `${this.failedEarly} of the first ${this.counted} requests failed (the rule: most of the first ${N}); ` + `${top.n} of them with this message`,
          });
        }
      }
    }
    if (o.ok) {
      this.streaks.delete(o.server);
      return null;
    }
    if (K <= 0) return null;
    const sig = signature(o.kind, o.message);
    const s = this.streaks.get(o.server);
    const streak = s && s.sig === sig ? { sig, n: s.n + 1 } : { sig, n: 1 };
    this.streaks.set(o.server, streak);
    if (streak.n >= K) {
      return (this.trip = {
        rule: 'same_in_a_row',
        kind: o.kind,
        message: o.message,
        status: o.status ?? null,
        server: o.server,
        count: streak.n,
        detail: `${streak.n} requests in a row on server ${o.server} failed the same way (the rule: ${K} in a row)`,
      });
    }
    return null;
  }

  /** One job's preparation (FP: a video's decode): ok when any of its requests got what it needs; a failure when none did. */
  prepared(o: PrepOutcome): Trip | null {
    if (this.trip) return this.trip;
    const M = this.settings.firstPrepared;
    if (o.ok) {
      this.anyPrepared = true;
      return null;
    }
    this.lastPrepMessage = o.message;
    if (M <= 0 || this.anyPrepared) return null;
    this.prepSeen++;
    if (this.prepSeen >= M) {
      const w = this.words;
      return (this.trip = {
        rule: 'decode',
        kind: w.kind,
        message: this.lastPrepMessage,
        status: null,
        server: null,
        count: this.prepSeen,
        detail: `the first ${this.prepSeen} ${w.jobs} all ${w.failed} and ${w.noneOk} (the rule: the first ${M})`,
      });
    }
    return null;
  }
}
