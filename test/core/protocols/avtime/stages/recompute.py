#!/usr/bin/python3
"""Independent recomputation of an AVTime-Bench run from its own artifacts (SPEC-AVTIME §4, §7).

Reads target_inputs.jsonl (durations), inference/shard*/raw_predictions.jsonl, the manifest and
semantic_responses.jsonl; recomputes every prediction (LongVALE lines, stable sort, upstream's adjacent merge
(test/fixtures/avtime/longvale_merge.py), pct->ms) and every query score and the six means, and compares them
exactly with predictions.jsonl, the traces and summary.json. Prints one JSON line; exit 1 on any mismatch.

usage: recompute.py OUTPUT_ROOT RUN_ID TARGET_INPUTS MANIFEST
"""
import glob, json, math, os, re, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', '..', 'fixtures', 'avtime'))
from longvale_merge import merge_triples  # noqa: E402

EVENT = re.compile(r'^From ([0-9]{2}) to ([0-9]{2}), (.+)$')


def jsonl(path):
    with open(path, encoding='utf-8') as f:
        return [json.loads(l) for l in f if l.strip()]


def normalize(response, d):
    events = []
    for line in re.split(r'\r\n|\r|\n', response):
        m = EVENT.match(line.strip())
        if not m:
            continue
        s, e = int(m.group(1)), int(m.group(2))
        if s <= e <= 99:
            events.append([s, e, m.group(3)])
    if not events:
        return None
    events.sort(key=lambda x: (x[0], x[1]))  # Python's sort is stable
    merged = merge_triples(events)  # upstream LongVALE's merge_similar_sentences, transcribed
    out = []
    for s, e, c in merged:
        start = min(max(s * d // 100, 0), d)
        end = min(max(-((-(e + 1) * d) // 100), 0), d)
        out.append({'start_pct': s, 'end_pct': e, 'start_ms': start, 'end_ms': end, 'caption': c})
    return out


def union(ivs):
    out = []
    for s, e in sorted(ivs):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def length(ivs):
    return sum(e - s for s, e in union(ivs))


def inter(a, b):
    total = 0
    for s1, e1 in union(a):
        for s2, e2 in union(b):
            total += max(0, min(e1, e2) - max(s1, s2))
    return total


def main():
    root, run_id, target_inputs, manifest = sys.argv[1:5]
    inputs = jsonl(target_inputs)
    raw = {}
    for f in sorted(glob.glob(os.path.join(root, 'inference', 'shard*', 'raw_predictions.jsonl'))):
        for r in jsonl(f):
            assert r['id'] not in raw, 'raw id twice: ' + r['id']
            raw[r['id']] = r
    mismatches = []
    preds = {}
    expected_preds = []
    for t in inputs:
        ev = normalize(raw[t['id']]['response'], t['metadata']['duration_ms'])
        if ev is not None:
            preds[t['metadata']['video_id']] = (ev, t['metadata']['duration_ms'])
            expected_preds.append((t['id'], ev))
    got = [(p['id'], p['events']) for p in jsonl(os.path.join(root, 'predictions.jsonl'))]
    if got != expected_preds:
        mismatches.append('predictions.jsonl differs')
    failures = len(inputs) - len(expected_preds)
    if len(jsonl(os.path.join(root, 'prediction_failures.jsonl'))) != failures:
        mismatches.append('prediction_failures.jsonl count differs')

    # The counted judge answer per query: the last valid response line of the highest pass.
    best = {}
    for r in jsonl(os.path.join(root, 'semantic_responses.jsonl')):
        q = r['query_id']
        if q not in best or r['pass'] >= best[q]['pass']:
            best[q] = r
    sums, counts, scores = {}, {}, {}
    for q in jsonl(manifest):
        key = q['direction'].upper() + '-' + q['axis']
        p = preds.get(q['video_id'])
        score = 0
        if p is not None:
            ev, d = p
            resp = best.get(q['query_id'], {}).get('response')
            if q['direction'] == 't2e':
                active = [e for e in ev if e['start_ms'] <= q['time_ms'] < e['end_ms']]
                score = resp['score'] / 4 if active else 0
            elif q['direction'] == 'e2t':
                sel = [[ev[i]['start_ms'], ev[i]['end_ms']] for i in sorted(set(resp['indices']))]
                if sel:
                    ref = [list(q['reference_interval_ms'])]
                    score = inter(sel, ref) / length(sel + ref)
            else:
                ua = union([[ev[i]['start_ms'], ev[i]['end_ms']] for i in set(resp['indices_a'])])
                ub = union([[ev[i]['start_ms'], ev[i]['end_ms']] for i in set(resp['indices_b'])])
                if ua and ub:
                    tau = -(-d // 100)
                    if ua[-1][1] <= ub[0][0] + tau:
                        rel = 'before'
                    elif ua[0][0] >= ub[-1][1] - tau:
                        rel = 'after'
                    else:
                        rel = 'overlap'
                    score = 1 if rel == q['relation'] else 0
        scores[q['query_id']] = score
        sums[key] = sums.get(key, 0) + score
        counts[key] = counts.get(key, 0) + 1
    ev_dir = os.path.join(root, 'eval', run_id)
    for d in ('t2e', 'e2t', 'e2e'):
        for t in jsonl(os.path.join(ev_dir, d + '_trace.jsonl')):
            if t['score'] != scores[t['query_id']]:
                mismatches.append('%s: trace %r, recomputed %r' % (t['query_id'], t['score'], scores[t['query_id']]))
    with open(os.path.join(ev_dir, 'summary.json'), encoding='utf-8') as f:
        summary = json.load(f)
    means = {k: sums[k] / counts[k] for k in sums}
    for k in ('T2E-A', 'T2E-V', 'E2T-A', 'E2T-V', 'E2E-A', 'E2E-V'):
        if summary[k] != means[k]:
            mismatches.append('%s: summary %r, recomputed %r' % (k, summary[k], means[k]))
    if summary['prediction_failures'] != failures:
        mismatches.append('prediction_failures differs')
    print(json.dumps({'predictions': len(expected_preds), 'queries': len(scores), 'means': means, 'mismatches': mismatches}))
    sys.exit(1 if mismatches else 0)


if __name__ == '__main__':
    main()
