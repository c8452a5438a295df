#!/usr/bin/python3
"""Independent recomputation of SPEC-AVTIME-DATA §1 (split), §4 (build-sft) and §5 (build-grpo), stdlib only.

Written from the SPEC's text, not from the TypeScript: the tests compare fpsweep's outputs with what this writes.
  recompute.py split SOURCE OUT_DIR EXPECTED_ROWS (frozen TEST_IDS | derived SIZE SEED)
  recompute.py sft AVTIME LONGVALE|- SYSTEM_PROMPT_FILE USER_PROMPT_FILE COUNT SEED OUT_JSONL OUT_SUMMARY
  recompute.py grpo INPUT SEED shuffle|no-shuffle OUT_JSONL
"""
import hashlib
import json
import math
import re
import sys


def reject_constant(name):
    raise ValueError("not JSON: " + name)


def loads(text):
    return json.loads(text, parse_constant=reject_constant)


def dumps(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def read_lines(path):
    """(line number, exact text, parsed) for every non-blank line."""
    raw = open(path, "rb").read().decode("utf-8")
    if raw.startswith("\ufeff"):
        raw = raw[1:]
    parts = raw.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    out = []
    for i, text in enumerate(parts, start=1):
        if re.fullmatch(r"[ \t\r]*", text):
            continue
        out.append((i, text, loads(text)))
    return out


def sha256_bytes(b):
    return hashlib.sha256(b).hexdigest()


def rank(seed, ident):
    return hashlib.sha256((seed + ":" + ident).encode("utf-8")).hexdigest()


def video_of(row):
    md = row.get("metadata") or {}
    iv = md.get("input_video")
    if isinstance(iv, str) and iv:
        return iv
    vids = row.get("videos") or []
    if vids and isinstance(vids[0], str) and vids[0]:
        return vids[0]
    return None


def duration_of(row):
    md = row.get("metadata") or {}
    if md.get("duration_ms") is not None:
        v = md["duration_ms"]
    elif md.get("duration_sec") is not None:
        v = md["duration_sec"] * 1000
    else:
        return None
    ms = math.floor(v + 0.5)
    return ms if ms > 0 else None


FENCE = re.compile(r"```json[ \t\r\n]*(.*?)```", re.S)


def as_list(v):
    if isinstance(v, list):
        lst = v
    elif isinstance(v, dict) and isinstance(v.get("events"), list):
        lst = v["events"]
    else:
        return None
    return lst if lst else None


def try_json(text):
    try:
        return True, loads(text)
    except ValueError:
        return False, None


def json_events(content):
    ok, v = try_json(content)
    if ok and as_list(v):
        return as_list(v)
    blocks = FENCE.findall(content)
    if not blocks:
        return None
    ok, v = try_json(blocks[-1])
    return as_list(v) if ok else None


def assistants_from_end(row):
    for m in reversed(row.get("messages") or []):
        if m.get("role") == "assistant" and isinstance(m.get("content"), str):
            yield m["content"]


# ---------------------------------------------------------------- split (§1)
def event_count_of(row):
    md = row.get("metadata") or {}
    if md.get("event_count") is not None:
        n = md["event_count"]
        return n if (isinstance(n, int) or (isinstance(n, float) and n.is_integer())) and n > 0 else None
    for c in assistants_from_end(row):
        lst = json_events(c)
        if lst:
            return len(lst)
    return None


def split(source, out_dir, expected, mode, args):
    lines = read_lines(source)
    retained = []
    other = unknown = 0
    for ln, text, row in lines:
        src = (row.get("metadata") or {}).get("source")
        if src is not None:
            if src != "avtime":
                other += 1
                continue
        elif not row.get("id", "").startswith("avtime_"):
            unknown += 1
            continue
        retained.append(dict(line=ln, text=text, id=row["id"], video=video_of(row), duration_ms=duration_of(row), event_count=int(event_count_of(row))))
    assert expected == 0 or len(retained) == expected
    n = len(retained)

    def cuts(key):
        vals = sorted(r[key] for r in retained)
        return [vals[(k * n) // 5] for k in range(1, 5)]

    cd, ce = cuts("duration_ms"), cuts("event_count")
    for r in retained:
        r["duration_bin"] = sum(1 for q in cd if r["duration_ms"] >= q)
        r["event_count_bin"] = sum(1 for q in ce if r["event_count"] >= q)
    manifest = {"schema_version": "avtime_split_v1", "mode": mode}
    if mode == "frozen":
        test_ids = {loads(l)["id"] for l in open(args[0], encoding="utf-8").read().split("\n") if l.strip()}
    else:
        size, seed = int(args[0]), args[1]
        manifest["seed"] = seed
        strata = [[] for _ in range(25)]
        for r in retained:
            strata[5 * r["duration_bin"] + r["event_count_bin"]].append(r)
        quota = [size * len(s) // n for s in strata]
        rest = size - sum(quota)
        # largest fractional part first, ties to the lower index (exact: compare remainders)
        order = sorted(range(25), key=lambda s: (-((size * len(strata[s])) % n), s))
        for s in order[:rest]:
            quota[s] += 1
        test_ids = set()
        for s, rows in enumerate(strata):
            for r in sorted(rows, key=lambda r: rank(seed, r["id"]))[: quota[s]]:
                test_ids.add(r["id"])
    test = [r for r in retained if r["id"] in test_ids]
    train = [r for r in retained if r["id"] not in test_ids]
    files = {
        "train.jsonl": "".join(r["text"] + "\n" for r in train),
        "test.jsonl": "".join(r["text"] + "\n" for r in test),
        "test_ids.jsonl": "".join(
            dumps({k: r[k] for k in ("id", "video", "duration_ms", "event_count", "duration_bin", "event_count_bin")}) + "\n" for r in test
        ),
    }
    manifest["source"] = {
        "path": source,
        "sha256": sha256_bytes(open(source, "rb").read()),
        "rows_read": len(lines),
        "rows_retained": n,
        "excluded": {"other_source": other, "unknown_unlabeled": unknown},
    }
    if mode == "frozen":
        manifest["test_ids_file"] = {"path": args[0], "sha256": sha256_bytes(open(args[0], "rb").read())}
    manifest["cut_points"] = {"duration_ms": cd, "event_count": ce}
    counts = {"train.jsonl": len(train), "test.jsonl": len(test), "test_ids.jsonl": len(test)}
    manifest["outputs"] = {k: {"rows": counts[k], "sha256": sha256_bytes(v.encode("utf-8"))} for k, v in files.items()}

    def dist(rows):
        d, e = [0] * 5, [0] * 5
        for r in rows:
            d[r["duration_bin"]] += 1
            e[r["event_count_bin"]] += 1
        return {"duration_bins": d, "event_count_bins": e}

    manifest["distributions"] = {"train": dist(train), "test": dist(test)}
    manifest["checks"] = {
        "ids_disjoint": not ({r["id"] for r in train} & test_ids),
        "videos_disjoint": not ({r["video"] for r in train} & {r["video"] for r in test}),
        "covers_retained": len(train) + len(test) == n,
    }
    files["split_manifest.json"] = json.dumps(manifest, ensure_ascii=False, indent=2) + "\n"
    for name, text in files.items():
        with open(out_dir + "/" + name, "w", encoding="utf-8", newline="") as f:
            f.write(text)


# ---------------------------------------------------------------- events (§4, SPEC-AVTIME §4 lines)
LINE = re.compile(r"From ([0-9]{2}) to ([0-9]{2}), (.+)", re.S)


def event_lines(content):
    """(events, count of start>end lines) of the `From XX to YY, caption` lines; other lines ignored."""
    events, reversed_ = [], 0
    for raw in re.split(r"\r\n|\r|\n", content):
        t = raw.strip()  # Python's own strip: the line protocol's rule
        if not t:
            continue
        m = LINE.fullmatch(t)
        if not m:
            continue
        s, e = int(m.group(1)), int(m.group(2))
        if s > e:
            reversed_ += 1
            continue
        events.append((s, e, m.group(3)))
    return events, reversed_


def norm_caption(c):
    return re.sub(r"[ \t\n\r\f\v]+", " ", c).strip(" ")


def bucket(x_start, x_end):
    s = min(max(math.floor(x_start), 0), 99)
    e = min(max(math.ceil(x_end) - 1, 0), 99)
    return s, max(s, e)


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def sft_events(row, dur, tally):
    found = None
    for c in assistants_from_end(row):
        lst = json_events(c)
        if lst:
            found = ("json", lst)
            break
        evs, rev = event_lines(c)
        if evs:
            found = ("lines", evs, rev)
            break
    if found is None:
        return None
    kept = []
    if found[0] == "json":
        for e in found[1]:
            if not isinstance(e, dict):
                tally["bad_time"] += 1
                continue
            cap = norm_caption(e["caption"]) if isinstance(e.get("caption"), str) else ""
            if "start_pct" in e or "end_pct" in e:
                span = bucket(e["start_pct"], e["end_pct"]) if is_num(e.get("start_pct")) and is_num(e.get("end_pct")) else None
            elif is_num(e.get("start_ms")) and is_num(e.get("end_ms")):
                span = bucket(100 * e["start_ms"] / dur, 100 * e["end_ms"] / dur)
            else:
                span = None
            if span is None:
                tally["bad_time"] += 1
            elif cap == "":
                tally["no_caption"] += 1
            else:
                kept.append((span[0], span[1], cap))
    else:
        tally["bad_time"] += found[2]
        for s, e, c in found[1]:
            cap = norm_caption(c)
            if cap == "":
                tally["no_caption"] += 1
            else:
                kept.append((s, e, cap))
    unique = []
    for ev in kept:
        if ev not in unique:
            unique.append(ev)
    tally["deduplicated"] += len(kept) - len(unique)
    return sorted(unique, key=lambda ev: (ev[0], ev[1]))  # sorted() is stable


def sft(avtime, longvale, system_file, user_file, count, seed, out_jsonl, out_summary):
    system = open(system_file, encoding="utf-8", newline="").read()
    user = open(user_file, encoding="utf-8", newline="").read()
    tally = {"no_caption": 0, "bad_time": 0, "deduplicated": 0}
    summary = {"skipped": {}, "valid": {}}
    chosen = {}
    for source, path in (("longvale", longvale), ("avtime", avtime)):
        if path == "-":
            continue
        skipped = {"no_video": 0, "no_duration": 0, "no_events": 0}
        rows = []
        for ln, text, row in read_lines(path):
            video = video_of(row)
            if video is None:
                skipped["no_video"] += 1
                continue
            dur = duration_of(row)
            if dur is None:
                skipped["no_duration"] += 1
                continue
            evs = sft_events(row, dur, tally)
            if not evs:
                skipped["no_events"] += 1
                continue
            answer = "\n".join("From %02d to %02d, %s" % ev for ev in evs)
            rows.append(
                {
                    "id": row["id"],
                    "videos": [video],
                    "messages": [
                        {"role": "system", "content": system},
                        {"role": "user", "content": "<video>" + user},
                        {"role": "assistant", "content": answer},
                    ],
                    "metadata": {"source": source, "duration_ms": dur},
                }
            )
        summary["skipped"][source] = skipped
        summary["valid"][source] = len(rows)
        chosen[source] = rows
    avt = chosen["avtime"]
    if count:
        keep = {r["id"] for r in sorted(avt, key=lambda r: rank(seed, r["id"]))[:count]}
        avt = [r for r in avt if r["id"] in keep]
    out = chosen.get("longvale", []) + avt
    with open(out_jsonl, "w", encoding="utf-8", newline="") as f:
        f.write("".join(dumps(r) + "\n" for r in out))
    per_row = sorted(len(r["messages"][2]["content"].split("\n")) for r in out)
    summary.update(
        {
            "sampled": len(avt),
            "written": len(out),
            "events": {"dropped": {"no_caption": tally["no_caption"], "bad_time": tally["bad_time"]}, "deduplicated": tally["deduplicated"]},
            "per_row": {"min": per_row[0], "median": per_row[(len(per_row) - 1) // 2], "max": per_row[-1]},
            "prompt_sha256": {"system": sha256_bytes(system.encode("utf-8")), "user": sha256_bytes(user.encode("utf-8"))},
        }
    )
    with open(out_summary, "w", encoding="utf-8") as f:
        json.dump(summary, f, ensure_ascii=False, indent=2)


# ---------------------------------------------------------------- grpo (§5)
def grpo(path, seed, shuffle, out_jsonl):
    out = []
    for ln, text, row in read_lines(path):
        (assistant,) = [m for m in row["messages"] if m["role"] == "assistant"]
        assert len(row["videos"]) == 1
        events = []
        for raw in re.split(r"\r\n|\r|\n", assistant["content"]):
            t = raw.strip()
            if not t:
                continue
            m = LINE.fullmatch(t)
            assert m and int(m.group(1)) <= int(m.group(2)), (ln, t)
            events.append({"start_pct": int(m.group(1)), "end_pct": int(m.group(2)), "caption": m.group(3)})
        assert all(a["start_pct"] <= b["start_pct"] for a, b in zip(events, events[1:]))
        new = dict(row)
        new["messages"] = [m for m in row["messages"] if m["role"] != "assistant"]
        new["schema"] = "avtime_btsc_grpo_v1"
        new["task"] = "bitsc"
        new["solution"] = dumps(events)
        out.append(new)
    if shuffle:
        out.sort(key=lambda r: rank(seed, r["id"]))
    with open(out_jsonl, "w", encoding="utf-8", newline="") as f:
        f.write("".join(dumps(r) + "\n" for r in out))


if __name__ == "__main__":
    cmd, rest = sys.argv[1], sys.argv[2:]
    if cmd == "split":
        split(rest[0], rest[1], int(rest[2]), rest[3], rest[4:])
    elif cmd == "sft":
        sft(rest[0], rest[1], rest[2], rest[3], int(rest[4]), rest[5], rest[6], rest[7])
    elif cmd == "grpo":
        grpo(rest[0], rest[1], rest[2] == "shuffle", rest[3])
    else:
        sys.exit("unknown command " + cmd)
