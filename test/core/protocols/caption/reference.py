#!/usr/bin/env python3
"""An independent reading of SPEC-AVTIME-DATA §3 (answer parsing and normalization), for the tests to compare with.

stdin: JSON list of cases {"content": str, "clip": {"start_sec", "end_sec"}}; stdout: JSON list of
{"ok": true, "events": [...]} (normalized onto the video's timeline) or {"ok": false}.
With --merge: stdin is a JSON list of videos, each the list of its clips' accepted answers in order
({"content", "clip"}); stdout the list of their captions_merged.json contents (every clip's events, in order).
"""
import json
import math
import re
import sys


def json_text(content):
    if "</think>" in content:
        content = content.rsplit("</think>", 1)[1]
    if "```json" in content:
        body = content.rsplit("```json", 1)[1]
        return body.split("```", 1)[0].strip()
    starts = [i for i in (content.find("["), content.find("{")) if i >= 0]
    ends = [content.rfind("]"), content.rfind("}")]
    if not starts or max(ends) <= min(starts):
        return None
    return content[min(starts):max(ends) + 1]


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def parse(content):
    text = json_text(content)
    if text is None:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if isinstance(value, dict) and isinstance(value.get("events"), list):
        value = value["events"]
    if not isinstance(value, list) or not value:
        return None
    out = []
    for ev in value:
        if not isinstance(ev, dict) or not is_number(ev.get("start_sec")) or not is_number(ev.get("end_sec")):
            return None
        cap = ev.get("caption")
        cap = " ".join(cap.split()) if isinstance(cap, str) else ""
        if not cap:
            return None
        out.append([float(ev["start_sec"]), float(ev["end_sec"]), cap])
    return out


def rnd(t):
    return math.floor(t * 1000 + 0.5) / 1000


def normalize(events, clip):
    d = clip["end_sec"] - clip["start_sec"]
    kept = []
    for s, e, cap in events:
        s, e = min(max(s, 0.0), d), min(max(e, 0.0), d)
        if e > s:
            kept.append([s, e, cap])
        elif kept:
            kept[-1][2] += " " + cap
            kept[-1][1] = max(kept[-1][1], s)
        else:
            kept.append([0.0, d, cap])
    kept[0][0] = 0.0
    kept[-1][1] = d
    c0 = clip["start_sec"]
    return [{"start_sec": rnd(s + c0), "end_sec": rnd(e + c0), "caption": cap} for s, e, cap in kept]


def one(case):
    events = parse(case["content"])
    return {"ok": False} if events is None else {"ok": True, "events": normalize(events, case["clip"])}


if "--merge" in sys.argv:
    json.dump([[ev for case in video for ev in one(case)["events"]] for video in json.load(sys.stdin)], sys.stdout)
else:
    json.dump([one(case) for case in json.load(sys.stdin)], sys.stdout)
