#!/usr/bin/env python3
"""The host model's GPU frame costs from the whole-sweep bench (issue 45), in bench/hostSim/gpuFrameCosts.ts's schema:
  python3 bench/gpuSweep/derive.py RESULTS/sweep.json OUT.json "DEVICE WORDS" [HELPERS_MODE]

Every figure comes from the end-to-end GPU runs of sweep_bench.py (the product's own `fpsweep run`):
  - a class for each stored shape the GPU made long videos of (1024 stored frames: 800 or more delivered; the sample
    has 1280x720, 720x1280, 720x720 and 640x480 ones; the host model takes the class nearest a video's pixels): the
    helpers' own per-job lines (FP_GPU_STATS=1) inside the whole sweep: the helper's CPU-s + its ffmpeg's,
    ffmpeg's alone (decode), the job's wall in its slot;
  - the helpers' per-job CPU scaled up to what their processes took end to end (/proc), less the warm-ups
    ("helperCpuScale", at least 1);
  - plus the run process's (node: requests, JPEG reads and digests, the store) CPU-s a JPEG in the GPU runs, from the
    marginal between the two fixture sizes, charged on each class by its JPEGs: our tree's whole cost a video, not
    the helper alone;
  - gpuSTakenPerVideo: the GPU time a model-shaped matmul lost beside a whole GPU run ("gpu+beside"), over the
    frames x pixels the helpers made in it, times each class's frames x pixels (the apportioning is named in
    "modelled"). GPU_TAKEN_FROM=OTHER_SWEEP.json takes the beside run from another results file of this bench (named
    in "modelled"). Without a beside run: bench/gpuFrames run 4's figure, named in "modelled".
"""
import json
import os
import sys


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def main():
    src, out, device = sys.argv[1], sys.argv[2], sys.argv[3]
    mode = sys.argv[4] if len(sys.argv) > 4 else "gpu"
    rep = json.load(open(src))
    runs = [r for r in rep["runs"] if r["rc"] == 0 and r["mode"] == mode]
    jobs = [j for r in runs for h in r["helper_stats"] for j in h.get("per_job", [])]
    sizes = sorted({r["videos"] for r in runs})
    lo, hi = sizes[0], sizes[-1]
    by = lambda v: [r for r in runs if r["videos"] == v]
    run_cpu = (mean([r["cpu_s_by_class"]["run"] for r in by(hi)]) - mean([r["cpu_s_by_class"]["run"] for r in by(lo)]))
    jpegs = mean([r["jpegs"] for r in by(hi)]) - mean([r["jpegs"] for r in by(lo)])
    if hi == lo:  # one size only: the run process's whole CPU a JPEG (start-up included: an upper bound)
        run_cpu, jpegs = mean([r["cpu_s_by_class"]["run"] for r in by(lo)]), mean([r["jpegs"] for r in by(lo)])
    run_per_jpeg = run_cpu / jpegs
    helpers = 4 if ":" not in mode else int(mode.split(":")[1])
    # The helpers' own per-job CPU (a job's thread, or the process while it ran one job) scaled so that the jobs
    # together take what the helper processes took end to end (sampled from /proc), less their warm-ups: what a
    # helper spends beside its job threads (reading stdin, torch's own threads) is charged to the videos too.
    helper_total = sum(r["cpu_s_by_class"]["helpers"] for r in runs)
    warm_total = sum((h.get("warm") or {}).get("warm_cpu_s", 0) for r in runs for h in r["helper_stats"])
    jobs_total = sum(j[5] for j in jobs)
    helper_scale = max(1.0, (helper_total - warm_total) / jobs_total) if jobs_total > 0 else 1.0
    # The GPU time taken end to end: the beside run's total over the frames x pixels its helpers made (from
    # GPU_TAKEN_FROM, another results file of this bench, where this one has no beside run; named in "modelled").
    taken_from = os.environ.get("GPU_TAKEN_FROM")
    trep = json.load(open(taken_from)) if taken_from else rep
    beside = [r for r in trep["runs"] if r["rc"] == 0 and r["mode"] == mode + "+beside" and (r.get("beside") or {}).get("gpu_s_taken") is not None]
    taken_per_mpx = None
    if beside:
        bjobs = [j for r in beside for h in r["helper_stats"] for j in h.get("per_job", [])]
        mpx = sum(j[0] * j[1] * j[2] for j in bjobs) / 1e6
        if mpx > 0:
            taken_per_mpx = sum(r["beside"]["gpu_s_taken"] for r in beside) / mpx
    modelled = []
    classes = {}
    for w, h in sorted({(j[0], j[1]) for j in jobs}, key=lambda d: -d[0] * d[1]):
        mine = [j for j in jobs if (j[0], j[1]) == (w, h) and j[2] >= 800]  # the long videos: 1024 stored frames
        if not mine:
            continue
        jp = mean([j[3] for j in mine])
        gpu_s = {(1280, 720): 0.19119963139295582, (854, 480): 0.14169407194852832}.get((w, h))
        if taken_per_mpx is not None:
            gpu_s = taken_per_mpx * mean([j[2] for j in mine]) * w * h / 1e6
        if gpu_s is None:
            continue
        classes[f"v{w}x{h}"] = {
            "width": w, "height": h, "storedFrames": 1024, "jpegsPerVideo": round(jp),
            "cpuSPerVideo": mean([j[5] * helper_scale + j[6] for j in mine]) + run_per_jpeg * jp,
            "decodeCpuSPerVideo": mean([j[6] for j in mine]),
            "wallSPerVideo": mean([j[4] for j in mine]), "pool": helpers,
            "gpuSTakenPerVideo": gpu_s,
            "jobs": len(mine),
            "jpegEncoders": sorted({str(j[7]) for j in mine if len(j) > 7}),
        }
    if taken_per_mpx is not None:
        modelled.append(f"gpuSTakenPerVideo: the whole GPU run beside a model-shaped matmul took {taken_per_mpx * 1e3:.3f} GPU-ms a "
                        "megapixel-frame its helpers made; each class gets that times its own frames x pixels (the apportioning "
                        "is the model's; the total is measured end to end)"
                        + (f"; that beside run is {os.path.basename(taken_from)}'s, not this file's runs'" if taken_from else ""))
    else:
        modelled.append("gpuSTakenPerVideo: bench/gpuFrames run 4's interference (a model-shaped matmul beside the helpers); "
                        "no whole-sweep run beside the matmul in this file")
    # The whole sweep's marginal video and fixed part, each path (every process of the run's tree; doctor's line).
    ok = [r for r in rep["runs"] if r["rc"] == 0]
    marginal = {}
    for m in ("cpu", mode):
        g = lambda v, k: mean([r[k] for r in ok if r["mode"] == m and r["videos"] == v])
        if hi == lo or not all(any(r["mode"] == m and r["videos"] == v for r in ok) for v in (lo, hi)):
            continue
        dv = hi - lo
        w, c = (g(hi, "wall_s") - g(lo, "wall_s")) / dv, (g(hi, "cpu_s_total") - g(lo, "cpu_s_total")) / dv
        marginal[m] = {"wallSPerVideo": w, "cpuSPerVideo": c, "fixedWallS": g(lo, "wall_s") - lo * w,
                       "fixedCpuS": g(lo, "cpu_s_total") - lo * c, "videos": [lo, hi]}
    doc = {
        "device": device, "measuredAt": rep["started"],
        "command": f"bench/gpuSweep: run-on-device.sh (sweep_bench.py runs, mode {mode}), then derive.py",
        "classes": {k: {kk: vv for kk, vv in v.items() if kk not in ("jobs", "jpegEncoders")} for k, v in classes.items()},
        "modelled": modelled,
        "gpuSTakenPerMegapixelFrame": taken_per_mpx,
        "jpegEncodersPerClass": {k: v["jpegEncoders"] for k, v in classes.items()},
        "runProcessCpuSPerJpeg": run_per_jpeg,
        "helperCpuScale": helper_scale,
        "helperCpu": {"sampledS": helper_total, "warmS": warm_total, "jobsS": jobs_total},
        "sweepMarginal": marginal,
        "jobsPerClass": {k: v["jobs"] for k, v in classes.items()},
    }
    json.dump(doc, open(out, "w"), indent=2)
    print(json.dumps(doc, indent=2))


if __name__ == "__main__":
    main()
