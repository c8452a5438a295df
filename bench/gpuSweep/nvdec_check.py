#!/usr/bin/env python3
"""NVDEC in the helper's process (fp_nvdec.py) against ffmpeg's NVDEC, frame for frame (issue 45), on the device:

  python3 nvdec_check.py --fixture WORK/p1 --ffmpeg PATH --out OUT [--videos 8]

For each stored video of the fixture package (the longest first): every stored frame decoded both ways, each NV12
frame's sha256 compared in order (ffmpeg: fp_gpu_frames.nvdec_command with every index, as the helper's ffmpeg path
runs it; ours: fp_nvdec.NvdecJob, the frames copied down after the decode). Also each way's wall and CPU-s (ours:
this process and its demuxer). OUT/nvdec_check.json and a line a video.
"""
import hashlib
import json
import os
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from sweep_bench import arg  # noqa: E402


def cpu_self_children():
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime, c.ru_utime + c.ru_stime


def ffmpeg_hashes(ffmpeg, video, w, h, n):
    from fp_gpu_frames import nvdec_command

    size = w * h * 3 // 2
    p = subprocess.Popen(nvdec_command(ffmpeg, video, list(range(n))), stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
    out, buf = [], bytearray()
    while True:
        b = p.stdout.read(1 << 20)
        if not b:
            break
        buf += b
        while len(buf) >= size:
            out.append(hashlib.sha256(buf[:size]).hexdigest())
            del buf[:size]
    err = p.stderr.read().decode(errors="replace")
    rc = p.wait()
    return out, rc, err.strip()[-300:], len(buf)


def ours_hashes(ffmpeg, video, w, h, n):
    import torch

    import fp_nvdec

    out = []

    def on_batch(nv12):
        for f in nv12.cpu().numpy():
            out.append(hashlib.sha256(f.tobytes()).hexdigest())

    job = fp_nvdec.NvdecJob(torch, w, h, n, list(range(n)), 16, on_batch)
    try:
        job.run(ffmpeg, video)
        return out, None
    except fp_nvdec.NvdecUnfit as e:
        return out, str(e)


def main():
    import torch

    fixture, ffmpeg, out_dir = arg("--fixture"), arg("--ffmpeg"), arg("--out")
    nv = int(arg("--videos", "8"))
    torch.ones(1, device="cuda").sum().item()  # the CUDA context current in this thread, as in a helper
    root = os.path.join(fixture, "data", "store", "normalized")
    metas = []
    for h in sorted(os.listdir(root)):
        with open(os.path.join(root, h, "meta.json")) as f:
            m = json.load(f)
        metas.append((len(m["timestamps"]), m["width"], m["height"], os.path.join(root, h, "video.mp4")))
    metas.sort(key=lambda t: (-t[0] * t[1] * t[2], t[3]))
    shapes, picked = set(), []
    for m in metas:  # every shape first, then the largest
        if (m[1], m[2]) not in shapes:
            shapes.add((m[1], m[2]))
            picked.append(m)
    picked += [m for m in metas if m not in picked][: max(0, nv - len(picked))]
    res = {"videos": []}
    for n, w, h, video in picked[:max(nv, len(shapes))]:
        t0, (s0, c0) = time.perf_counter(), cpu_self_children()
        ref, rc, err, rest = ffmpeg_hashes(ffmpeg, video, w, h, n)
        t1, (s1, c1) = time.perf_counter(), cpu_self_children()
        ours, why = ours_hashes(ffmpeg, video, w, h, n)
        t2, (s2, c2) = time.perf_counter(), cpu_self_children()
        same = sum(1 for a, b in zip(ref, ours) if a == b)
        r = {"video": os.path.basename(os.path.dirname(video)), "size": f"{w}x{h}", "stored": n, "ffmpeg_frames": len(ref),
             "ffmpeg_rc": rc, "ffmpeg_err": err, "ffmpeg_rest_bytes": rest, "ours_frames": len(ours), "ours_unfit": why,
             "identical": same, "first_differ": next((k for k, (a, b) in enumerate(zip(ref, ours)) if a != b), None),
             "ffmpeg_wall_s": round(t1 - t0, 3), "ffmpeg_cpu_s": round((s1 - s0) + (c1 - c0), 3),
             "ours_wall_s": round(t2 - t1, 3), "ours_cpu_s": round((s2 - s1) + (c2 - c1), 3)}
        res["videos"].append(r)
        print("nvdec_check " + json.dumps(r), flush=True)
    res["all_identical"] = all(v["identical"] == v["stored"] == v["ours_frames"] == v["ffmpeg_frames"] for v in res["videos"])
    print(f"nvdec_check all identical: {res['all_identical']}", flush=True)
    with open(os.path.join(out_dir, "nvdec_check.json"), "w") as f:
        json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
