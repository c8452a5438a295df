#!/usr/bin/env python3
"""Where the GPU path's GPU time goes inside real jobs (issue 45), on the device machine:

  python3 parts.py --jobs-file WORK/jobs-TAG.jsonl --run-pkg WORK/run-TAG --fixture WORK/p4 --work WORK --out OUT
      [--n 16] [--variants broadcast,reference,nvjpeg,ffmpeg_select,ffmpeg_null,ffmpeg_start,batch32,jobs2,nvcuvid] [--deadline S]

The jobs a whole-sweep run sent its helpers (sweep_bench.py's "+tee" mode captured them: what the product asks, not
a made-up ladder), the n with the most frames, replayed beside the model-shaped matmul (sweep_bench.Beside), one
variant at a time, 4 at once as the product runs them:
  broadcast      FP_GPU_RGB=broadcast (fp_gpu_frames.py --serve --jobs 4): the colour conversion with half-size chroma
  reference      FP_GPU_RGB=reference: the colour conversion as before (its JPEGs must be broadcast's, byte for byte)
  batch32        FP_GPU_BATCH=32
  nvjpeg         FP_GPU_JPEG=auto (nvJPEG 4:2:0 where the warm-up's check passes)
  jobs2          2 jobs at once in the helper, not 4 (fewer ffmpeg CUDA contexts at once on the GPU)
  nvcuvid        FP_GPU_DECODE=nvcuvid: NVDEC in the helper's own process (fp_nvdec.py; ffmpeg only demuxes); its JPEGs
                 must be broadcast's, byte for byte
  ffmpeg_select  the jobs' own ffmpeg commands alone (NVDEC, select, NV12 downloaded), their frames read and dropped
  ffmpeg_null    NVDEC decode of every stored frame alone (-f null: no select, nothing downloaded)
  ffmpeg_start   ffmpeg's CUDA start and end alone (one frame decoded a process): the fixed part of each video
Each: wall, CPU-s (the helper and its ffmpegs, or the ffmpegs), the GPU time the matmul lost ("taken", its warm-up
outside the window), that per megapixel-frame delivered; the byte comparisons. OUT/parts.json and lines on stdout.
"""
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from sweep_bench import Beside, arg  # noqa: E402

HELPER = os.path.join(HERE, "fp_gpu_frames.py")
HELPER_ENV = {
    "broadcast": {"FP_GPU_RGB": "broadcast"},
    "reference": {"FP_GPU_RGB": "reference"},
    "batch32": {"FP_GPU_RGB": "broadcast", "FP_GPU_BATCH": "32"},
    "nvjpeg": {"FP_GPU_RGB": "broadcast", "FP_GPU_JPEG": "auto"},
    "jobs2": {"FP_GPU_RGB": "broadcast"},
    "nvcuvid": {"FP_GPU_RGB": "broadcast", "FP_GPU_DECODE": "nvcuvid"},
}
# Jobs at once in the helper process (--jobs): 4, the product's default (FP_GPU_HELPER_JOBS), or the variant's.
HELPER_JOBS = {"jobs2": 2}


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def replayable(jobs, run_pkg, fixture, root):
    """The jobs with their video in the fixture (the run's copy is gone) and every output in a private folder of
    root (mode 0700, as the node side makes), named by frame and size: (jobs, relative output names)."""
    out, names = [], []
    for k, job in enumerate(jobs):
        j = dict(job)
        j["video"] = job["video"].replace(run_pkg, fixture, 1)
        if not os.path.exists(j["video"]):
            raise SystemExit(f"parts: {j['video']}: no such video (run package {run_pkg}, fixture {fixture})")
        folder = os.path.join(root, str(k))
        os.makedirs(folder, mode=0o700)
        os.chmod(folder, 0o700)
        frames, seen = [], set()
        for f in job["frames"]:
            outs = []
            for o in f["outputs"]:
                name = f"{f['index']:05d}_{o['width']}x{o['height']}.jpg"
                if name in seen:
                    continue
                seen.add(name)
                outs.append({"width": o["width"], "height": o["height"], "path": os.path.join(folder, name)})
                names.append(os.path.join(str(k), name))
            frames.append({"index": f["index"], "outputs": outs})
        j["frames"] = frames
        j["id"] = k + 1
        out.append(j)
    return out, names


def helper_variant(name, jobs, alone_ms):
    """The helper (--serve --jobs 4) on these jobs beside the matmul, which starts once the helper is warm."""
    env = {**os.environ, "FP_GPU_STATS": "1", **HELPER_ENV[name]}
    cpu0 = children_cpu()
    proc = subprocess.Popen([sys.executable, HELPER, "--serve", "--jobs", str(HELPER_JOBS.get(name, 4))], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    ready = json.loads(proc.stdout.readline())
    mm = Beside(alone_ms)
    t0 = time.perf_counter()
    for j in jobs:
        proc.stdin.write(json.dumps(j) + "\n")
    proc.stdin.flush()
    answers = [json.loads(proc.stdout.readline()) for _ in jobs]
    wall = time.perf_counter() - t0
    beside = mm.stop()
    proc.stdin.close()
    err = proc.stderr.read()
    proc.wait()
    stats = {}
    if "fp_gpu_frames stats: " in err:
        stats = json.JSONDecoder().raw_decode(err.split("fp_gpu_frames stats: ", 1)[1])[0]
    ok = [a for a in answers if a.get("ok")]
    return {"ready": {k: ready.get(k) for k in ("ready", "warm_s", "warm_cpu_s", "jpeg", "jpeg_why", "warm_error")},
            "wall_s": round(wall, 3), "cpu_s": round(children_cpu() - cpu0, 2), "warm_cpu_s": ready.get("warm_cpu_s"),
            "ok": len(ok), "errors": [a.get("error") for a in answers if not a.get("ok")][:3],
            "frames": sum(a["frames"] for a in ok), "jpegs": sum(a["jpegs"] for a in ok),
            "stages_cpu_s": stats.get("stages_cpu_s"), "ffmpeg_cpu_s": round(stats.get("ffmpeg_cpu_s", 0), 2),
            "jpeg": sorted({str(a.get("jpeg")) for a in ok}), "beside": beside,
            "decoders": sorted({str(a.get("decoder")) for a in ok}),
            "decode_fallbacks": [a["decode_fallback"] for a in ok if a.get("decode_fallback")][:3]}


def command_variant(name, jobs, alone_ms):
    """Only ffmpeg, 4 at once: each job's own command (frames read and dropped), or a decode to null, or a start."""
    from fp_gpu_frames import nvdec_command

    def cmd(j):
        if name == "ffmpeg_select":
            return nvdec_command(j["ffmpeg"], j["video"], [f["index"] for f in j["frames"]])
        dec = [j["ffmpeg"], "-hide_banner", "-loglevel", "error", "-nostdin", "-threads", "1", "-hwaccel", "cuda",
               "-hwaccel_output_format", "cuda", "-i", j["video"], "-an"]
        return dec + (["-frames:v", "1"] if name == "ffmpeg_start" else []) + ["-f", "null", "-"]

    def one(j):
        p = subprocess.Popen(cmd(j), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        n = 0
        while True:
            b = p.stdout.read(1 << 20)
            if not b:
                break
            n += len(b)
        return p.wait(), n

    cpu0 = children_cpu()
    mm = Beside(alone_ms)
    t0 = time.perf_counter()
    with ThreadPoolExecutor(4) as pool:
        res = list(pool.map(one, jobs))
    wall = time.perf_counter() - t0
    beside = mm.stop()
    return {"wall_s": round(wall, 3), "cpu_s": round(children_cpu() - cpu0, 2), "ok": sum(1 for rc, _ in res if rc == 0),
            "bytes_out": sum(n for _, n in res), "beside": beside}


def same_bytes(root, a, b, names):
    same, differ = 0, []
    for rel in names:
        pa, pb = os.path.join(root, a, rel), os.path.join(root, b, rel)
        if os.path.exists(pa) and os.path.exists(pb) and open(pa, "rb").read() == open(pb, "rb").read():
            same += 1
        elif len(differ) < 5:
            differ.append(rel)
    return {"outputs": len(names), "identical_bytes": same, "differ_examples": differ}


def main():
    work, out = arg("--work"), arg("--out")
    run_pkg, fixture = arg("--run-pkg"), arg("--fixture")
    n = int(arg("--n", "16"))
    variants = arg("--variants", "broadcast,reference,nvjpeg,ffmpeg_select,ffmpeg_null,ffmpeg_start,batch32,jobs2").split(",")
    deadline = time.time() + float(arg("--deadline", "1e9"))
    with open(arg("--jobs-file")) as f:
        jobs = [json.loads(l) for l in f if l.strip()]
    jobs = sorted(jobs, key=lambda j: -len(j["frames"]) * j["width"] * j["height"])[:n]
    root = os.path.join(work, "parts")
    shutil.rmtree(root, ignore_errors=True)
    alone = Beside.alone()
    res = {"jobs": len(jobs), "shapes": sorted({f"{j['width']}x{j['height']}" for j in jobs}), "matmul_alone_ms": alone, "variants": {}}
    names = {}
    for name in variants:
        if time.time() + 30 > deadline:
            res.setdefault("skipped", []).append(name)
            continue
        mine, outputs = replayable(jobs, run_pkg, fixture, os.path.join(root, name))
        if name in HELPER_ENV:
            names[name] = outputs
            r = helper_variant(name, mine, alone)
        else:
            r = command_variant(name, mine, alone)
        mpx = sum(len(j["frames"]) * j["width"] * j["height"] for j in mine) / 1e6
        taken = (r.get("beside") or {}).get("gpu_s_taken")
        r["mpx_frames"] = round(mpx, 1)
        r["gpu_ms_taken_per_mpx_frame"] = None if taken is None else round(taken * 1e3 / mpx, 4)
        res["variants"][name] = r
        print(f"parts {name}: {json.dumps(r)}", flush=True)
    for other in ("reference", "batch32", "nvjpeg", "nvcuvid"):
        if "broadcast" in names and other in names:
            res.setdefault("compare", {})[other] = same_bytes(root, "broadcast", other, names["broadcast"])
            print(f"parts compare broadcast vs {other}: {json.dumps(res['compare'][other])}", flush=True)
    with open(os.path.join(out, "parts.json"), "w") as f:
        json.dump(res, f, indent=1)
    shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
