#!/usr/bin/env python3
"""Frames on the GPU, measured on the device machine (issue 34). Not a test.

  python3 bench/gpuFrames/device_bench.py CARRY_DIR OUT_DIR [DEADLINE_S]
CARRY_DIR holds bin/ffmpeg (bench/gpuFrames/prepare-ffmpeg.sh), workload.json (bench/gpuFrames/workload.ts) and
fp_gpu_frames.py (resources/python). Writes OUT_DIR/results.json after every phase, so a cut run keeps its figures.

Phases (each on both video classes: 1280x720 and 854x480 H.264, 1024 stored frames, testsrc2 + temporal noise,
libx264 veryfast crf 28 g 20: the bench's natural recipe, testsrc2 at rate 2 so every frame differs, decode cost
like real footage; run 1 used rate 30, ~7 KB a frame, far cheaper to decode):
  env      nvidia-smi, torch / torchvision, ffmpeg -hwaccels
  equal    every decoded frame's MD5 (framemd5), CPU decode vs NVDEC downloaded as yuv420p
  decode   ffmpeg -f null: CPU (4 threads) vs NVDEC, one video alone and P at once: wall, CPU s, frames/s
  frames   the whole path per video (every distinct JPEG of the default conditions, workload.json):
           gpu-nvjpeg (NVDEC + GPU Lanczos-3 + nvJPEG), gpu-cpujpeg (NVDEC + GPU Lanczos-3 + pillow's libjpeg),
           cpu (ffmpeg CPU decode to rgb24 + OpenCV INTER_AREA + cv2.imencode q85): P helpers at once
  jpeg     nvJPEG vs pillow JPEGs/s at short side 224-448 (encode only, from GPU / host tensors)
  interf   a model-shaped bf16 matmul (8192 tokens x 3584 -> 18944, Qwen2.5-7B's MLP up-projection) alone,
           then beside the gpu-cpujpeg frames path (the one the product uses): the GPU time the frames take from it
  sample   8 frames of each class: NVDEC's NV12 and the GPU path's JPEGs, for PSNR against sharp here
PHASES=videos,helpers runs only those (helpers: 8 and 12 helpers, 3 videos each, beside the matmul).
PHASES=env,videos,same,ffthreads,profile,pools (run 3): the helper as landed in session 14 (fp_gpu_frames_v1.py,
prepare-carry.sh takes it from git) against today's:
  same       v1 and v2 make the same JPEG bytes for one 720p video's job
  ffthreads  the helper's own ffmpeg command (NVDEC, select, hwdownload, NV12 on a pipe) at -threads 0/1/2/4, 8 at once
  profile    one warm v2 helper: CPU per stage (read, gpu, encode, write) and cProfile's top functions
  pools      v1 and v2 helper pools of 4 to 16 helpers beside the matmul: CPU and slot wall per video (a helper's
             first video, which pays cuBLAS' and the weights' start, left out), GPU time taken
"""
import json
import os
import resource
import shutil
import subprocess
import sys
import tarfile
import threading
import time

CARRY, OUT = sys.argv[1], sys.argv[2]
DEADLINE = time.time() + float(sys.argv[3] if len(sys.argv) > 3 else 520)
FFMPEG = os.path.join(CARRY, "bin", "ffmpeg")
HELPER = os.path.join(CARRY, "fp_gpu_frames.py")
HELPER_V1 = os.path.join(CARRY, "fp_gpu_frames_v1.py")
WORK = "/tmp/gpuframes"
os.makedirs(WORK, exist_ok=True)
sys.path.insert(0, CARRY)
from fp_gpu_frames import select_expression  # noqa: E402
WORKLOAD = json.load(open(os.path.join(CARRY, "workload.json")))["classes"]
R = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "phases": {}}


def save():
    with open(os.path.join(OUT, "results.json"), "w") as f:
        json.dump(R, f, indent=1)


def log(*a):
    print(f"[{time.strftime('%H:%M:%S')}]", *a, flush=True)


def sh(cmd, **kw):
    return subprocess.run(cmd, shell=isinstance(cmd, str), capture_output=True, text=True, **kw)


def kids_cpu():
    k = resource.getrusage(resource.RUSAGE_CHILDREN)
    return k.ru_utime + k.ru_stime


def timed(fn):
    t, c = time.perf_counter(), kids_cpu()
    out = fn()
    return time.perf_counter() - t, kids_cpu() - c, out


def phase(name, fn, need_s=30):
    if time.time() + need_s > DEADLINE:
        log(f"skip {name}: deadline")
        R["phases"][name] = {"skipped": "deadline"}
        save()
        return
    log(f"phase {name}")
    t = time.perf_counter()
    try:
        R["phases"][name] = fn()
    except Exception as e:
        import traceback

        R["phases"][name] = {"error": f"{type(e).__name__}: {e}", "trace": traceback.format_exc()[-1500:]}
    R["phases"][name] = R["phases"][name] or {}
    R["phases"][name]["phase_s"] = round(time.perf_counter() - t, 2)
    save()
    log(f"  {name}: {json.dumps(R['phases'][name])[:1500]}")


def video(c):
    return os.path.join(WORK, f"{c['name']}.mp4")


def env():
    import torch
    import torchvision

    return {
        "nvidia_smi": sh("nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader").stdout.strip(),
        "cpus": os.cpu_count(),
        "cpu_model": next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), None),
        "os": sh(". /etc/os-release; echo $PRETTY_NAME").stdout.strip(),
        "torch": torch.__version__, "torchvision": torchvision.__version__, "cuda": torch.version.cuda,
        "ffmpeg": sh([FFMPEG, "-hide_banner", "-version"]).stdout.splitlines()[0],
        "hwaccels": sh([FFMPEG, "-hide_banner", "-hwaccels"]).stdout.split()[3:],
        "libnvcuvid": sh("ldconfig -p | grep -E 'libnvcuvid|libcuda.so'").stdout.strip(),
        "probe": json.loads(sh([sys.executable, HELPER, "--probe", "--ffmpeg", FFMPEG]).stdout or "{}"),
    }


def make_videos():
    procs = []
    for c in WORKLOAD:
        args = [FFMPEG, "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                f"testsrc2=size={c['width']}x{c['height']}:rate=2,noise=alls=5:allf=t", "-frames:v", str(c["frames"]),
                "-c:v", "libx264", "-preset", "veryfast", "-crf", "28", "-g", "20", "-threads", "8", "-pix_fmt", "yuv420p",
                "-movflags", "+faststart", video(c)]
        procs.append(subprocess.Popen(args))
    rcs = [p.wait() for p in procs]
    return {"rc": rcs, "bytes": {c["name"]: os.path.getsize(video(c)) for c in WORKLOAD},
            "md5": {c["name"]: sh(["md5sum", video(c)]).stdout.split()[0] for c in WORKLOAD}}


def framemd5(args):
    out = sh([FFMPEG, "-hide_banner", "-loglevel", "error", "-nostdin"] + args + ["-f", "framemd5", "-"]).stdout
    return [l.split(",")[-1].strip() for l in out.splitlines() if l and not l.startswith("#")]


def equal():
    res = {}
    for c in WORKLOAD:
        cpu = framemd5(["-i", video(c), "-an", "-fps_mode", "passthrough", "-pix_fmt", "yuv420p"])
        gpu = framemd5(["-hwaccel", "cuda", "-hwaccel_output_format", "cuda", "-i", video(c), "-an",
                        "-vf", "hwdownload,format=nv12,format=yuv420p", "-fps_mode", "passthrough"])
        res[c["name"]] = {"cpu_frames": len(cpu), "nvdec_frames": len(gpu),
                          "identical": len(cpu) == len(gpu) == c["frames"] and cpu == gpu,
                          "first_diff": next((i for i, (a, b) in enumerate(zip(cpu, gpu)) if a != b), None)}
    return res


def run_pool(cmds):
    procs = [subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for c in cmds]
    errs = [p.stderr.read().decode(errors="replace")[-300:] for p in procs]
    return [p.wait() for p in procs], errs


def decode():
    res = {}
    for c in WORKLOAD:
        n = c["frames"]
        for mode, pre, threads in (("cpu", [], 4), ("nvdec", ["-hwaccel", "cuda", "-hwaccel_output_format", "cuda"], 1)):
            cmd = [FFMPEG, "-hide_banner", "-loglevel", "error", "-nostdin", "-threads", str(threads)] + pre + ["-i", video(c), "-an", "-f", "null", "-"]
            one = timed(lambda: run_pool([cmd]))
            row = {"one": {"wall_s": one[0], "cpu_s": one[1], "fps": n / one[0], "rc": one[2][0], "err": one[2][1][0][-200:]}}
            for p in (4, 8):
                w, cpu, (rcs, _) = timed(lambda: run_pool([cmd] * p))
                row[f"pool{p}"] = {"wall_s": w, "cpu_s": cpu, "cpu_s_per_video": cpu / p, "fps": p * n / w, "rc": rcs}
            res[f"{c['name']}_{mode}"] = row
    return res


def jobs_for(c, outdir, encoder):
    by = {}
    for i, w, h in c["jpegs"]:
        by.setdefault(i, []).append({"width": w, "height": h, "path": os.path.join(outdir, f"{i}_{w}x{h}.jpg")})
    return {"ffmpeg": FFMPEG, "video": video(c), "width": c["width"], "height": c["height"], "quality": 85,
            "encoder": encoder, "frames": [{"index": i, "outputs": o} for i, o in sorted(by.items())]}


def helper_pool(c, encoder, p, videos_each, tag, env=None, helper=HELPER):
    """p helper processes (--serve), each making videos_each videos' JPEGs: wall, all CPU (helpers + ffmpeg)."""
    def go():
        procs = []
        for k in range(p):
            proc = subprocess.Popen([sys.executable, helper, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                    env={**os.environ, **(env or {})})
            lines = []
            for v in range(videos_each):
                d = os.path.join(WORK, f"{tag}_{c['name']}_{encoder}_{k}_{v}")
                shutil.rmtree(d, ignore_errors=True)
                os.makedirs(d, mode=0o700)  # the helper writes only into a private folder of ours (issue 42)
                lines.append(json.dumps(jobs_for(c, d, encoder)))
            # Written from a thread: the jobs (~40 KB each) can outgrow the pipe while the helper works.
            feed = threading.Thread(target=lambda p=proc, data="\n".join(lines) + "\n": (p.stdin.write(data), p.stdin.close()))
            feed.start()
            procs.append(proc)
        results = [[json.loads(l) for l in proc.stdout] for proc in procs]
        for proc in procs:
            proc.wait()
        return results
    if WARM_ONLY.get("on"):
        w, cpu, results = timed(go)
        warm = [r for rs in results for r in rs[1:]]
        flat = [r for rs in results for r in rs]
        mean = lambda xs: sum(xs) / max(1, len(xs))
        return {"wall_s": w, "cpu_s_all": cpu, "videos": len(flat), "helpers": p, "ok": all(r.get("ok") for r in flat),
                "errors": [r.get("error") for r in flat if not r.get("ok")][:3],
                "warm_videos": len(warm),
                "slot_wall_s": mean([r["seconds"] for r in warm if r.get("ok")]),
                "cpu_s_per_video": mean([r["cpu_s"] + r["ffmpeg_cpu_s"] for r in warm if r.get("ok")]),
                "helper_cpu_s_per_video": mean([r["cpu_s"] for r in warm if r.get("ok")]),
                "ffmpeg_cpu_s_per_video": mean([r["ffmpeg_cpu_s"] for r in warm if r.get("ok")]),
                "stages_cpu_s": {k: mean([r["stages_cpu_s"][k] for r in warm if r.get("stages_cpu_s")])
                                 for k in ("read", "gpu", "encode", "write")} if any(r.get("stages_cpu_s") for r in warm) else None,
                "first_video_s": mean([rs[0]["seconds"] for rs in results if rs and rs[0].get("ok")]),
                "jpegs_per_s_warm": sum(r.get("jpegs", 0) for r in warm) / max(1e-9, sum(r["seconds"] for r in warm if r.get("ok"))) * p}
    # A warm helper's first video pays CUDA's start: measured apart below (start_s).
    w, cpu, results = timed(go)
    flat = [r for rs in results for r in rs]
    ok = all(r.get("ok") for r in flat)
    jpegs = sum(r.get("jpegs", 0) for r in flat)
    return {"wall_s": w, "cpu_s": cpu, "videos": len(flat), "ok": ok, "helpers": p, "jpegs": jpegs, "jpegs_per_s": jpegs / w,
            "cpu_s_per_video": cpu / max(1, len(flat)),
            "job_cpu_s_per_video": sum((r.get("cpu_s") or 0) + (r.get("ffmpeg_cpu_s") or 0) for r in flat) / max(1, len(flat)),
            "per_video": [{k: r.get(k) for k in ("seconds", "cpu_s", "ffmpeg_cpu_s", "error")} for r in flat[:4]]}


WARM_ONLY = {}


CPU_PATH = r'''
import json, subprocess, sys, cv2, numpy as np
cv2.setNumThreads(1)
job = json.loads(sys.argv[1])
w, h = job["width"], job["height"]
idx = [f["index"] for f in job["frames"]]
sys.path.insert(0, job["carry"]); from fp_gpu_frames import select_expression
sel = select_expression(idx)
p = subprocess.Popen([job["ffmpeg"], "-hide_banner", "-loglevel", "error", "-nostdin", "-threads", "4", "-i", job["video"], "-an",
    "-vf", f"select='{sel}'", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "bgr24", "pipe:1"], stdout=subprocess.PIPE)
n = w * h * 3
for f in job["frames"]:
    buf = p.stdout.read(n)
    img = np.frombuffer(buf, np.uint8).reshape(h, w, 3)
    for o in f["outputs"]:
        r = img if (o["width"], o["height"]) == (w, h) else cv2.resize(img, (o["width"], o["height"]), interpolation=cv2.INTER_AREA)
        ok, data = cv2.imencode(".jpg", r, [cv2.IMWRITE_JPEG_QUALITY, 85])
        open(o["path"], "wb").write(data.tobytes())
p.wait()
'''


def cpu_pool(c, p, videos_each):
    def go():
        cmds = []
        for k in range(p * videos_each):
            d = os.path.join(WORK, f"cpu_{c['name']}_{k}")
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d, mode=0o700)  # the helper writes only into a private folder of ours (issue 42)
            cmds.append([sys.executable, "-c", CPU_PATH, json.dumps({**jobs_for(c, d, "cpu"), "carry": CARRY})])
        # p at a time
        running, rcs = [], []
        for cmd in cmds:
            if len(running) >= p:
                rcs.append(running.pop(0).wait())
            running.append(subprocess.Popen(cmd))
        rcs += [r.wait() for r in running]
        return rcs
    w, cpu, rcs = timed(go)
    n = p * videos_each
    jpegs = n * len(c["jpegs"])
    return {"wall_s": w, "cpu_s": cpu, "videos": n, "rc": rcs, "jpegs_per_s": jpegs / w, "cpu_s_per_video": cpu / n}


def frames():
    res = R["phases"]["frames"] = {}
    # CUDA's start in a helper: one probe's wall and CPU (paid once per helper process, not per video).
    w, cpu, _ = timed(lambda: sh([sys.executable, HELPER, "--probe", "--ffmpeg", FFMPEG]))
    res["helper_start"] = {"wall_s": w, "cpu_s": cpu}
    for c in WORKLOAD:
        res[f"{c['name']}_jpegs_per_video"] = len(c["jpegs"])
        res[f"{c['name']}_gpu-cpujpeg_p1"] = helper_pool(c, "pillow", 1, 2, "p1")
        res[f"{c['name']}_gpu-nvjpeg_p4"] = helper_pool(c, "nvjpeg", 4, 2, "p4")
        if c["name"] == "v720":  # CUDA's default spinning waits, for comparison (the helper sleeps in them by default)
            res[f"{c['name']}_gpu-cpujpeg_p4_spin"] = helper_pool(c, "pillow", 4, 2, "p4spin", {"FP_GPU_SPIN": "1"})
        res[f"{c['name']}_gpu-cpujpeg_p4"] = helper_pool(c, "pillow", 4, 2, "p4")
        res[f"{c['name']}_cpu_p4"] = cpu_pool(c, 4, 2)
        save()
    return res


def jpeg_rates():
    import io

    import torch
    from PIL import Image
    from torchvision.io import encode_jpeg

    torch.manual_seed(0)
    res = {}
    base = torch.randint(0, 256, (3, 90, 160), dtype=torch.uint8, device="cuda").float()
    for s in (224, 336, 448):
        w = (16 * s + 4) // 9
        img = torch.nn.functional.interpolate(base[None], size=(s, w), mode="bicubic", align_corners=False)[0].clamp(0, 255).to(torch.uint8)
        batch = [img.clone() for _ in range(64)]
        encode_jpeg(batch[:4], quality=85)
        torch.cuda.synchronize()
        t = time.perf_counter()
        c0 = time.process_time()
        for _ in range(4):
            out = encode_jpeg(batch, quality=85)
        torch.cuda.synchronize()
        gw, gc = time.perf_counter() - t, time.process_time() - c0
        one = [img.clone() for _ in range(64)]
        t = time.perf_counter()
        for im in one:
            encode_jpeg(im, quality=85)
        torch.cuda.synchronize()
        gw1 = time.perf_counter() - t
        arr = img.permute(1, 2, 0).contiguous().cpu().numpy()
        pil = Image.fromarray(arr)
        c0 = time.process_time()
        t = time.perf_counter()
        for _ in range(128):
            b = io.BytesIO()
            pil.save(b, format="JPEG", quality=85, subsampling=2)
        pw, pc = time.perf_counter() - t, time.process_time() - c0
        res[f"{w}x{s}"] = {"nvjpeg_batch64_per_s": 256 / gw, "nvjpeg_batch64_cpu_ms": 1000 * gc / 256,
                           "nvjpeg_single_per_s": 64 / gw1, "pillow_per_s": 128 / pw, "pillow_cpu_ms": 1000 * pc / 128,
                           "bytes_nvjpeg": int(out[0].numel())}
    return res


MATMUL = r'''
import sys, time, json, torch
dur = float(sys.argv[1])
x = torch.randn(8192, 3584, device="cuda", dtype=torch.bfloat16)
w = torch.randn(3584, 18944, device="cuda", dtype=torch.bfloat16)
for _ in range(5): x @ w
torch.cuda.synchronize()
end = time.time() + dur
while time.time() < end:
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(10): x @ w
    e.record(); e.synchronize()
    print(f"{time.time()} {s.elapsed_time(e) / 10}", flush=True)
'''


def interference():
    def matmul(dur):
        return subprocess.Popen([sys.executable, "-c", MATMUL, str(dur)], stdout=subprocess.PIPE, text=True)
    def parse(text):
        return [(float(a), float(b)) for a, b in (l.split() for l in text.splitlines() if l.strip())]
    alone = parse(matmul(8).communicate()[0])
    med = sorted(t for _, t in alone)[len(alone) // 2]
    flop = 2 * 8192 * 3584 * 18944
    res = {"matmul_alone_ms": med, "matmul_alone_tflops": flop / (med / 1000) / 1e12}
    for c in WORKLOAD:
        mm = matmul(40)
        time.sleep(3)
        t0 = time.time()
        fr = helper_pool(c, "pillow", 4, 2, "interf")
        t1 = time.time()
        mm.terminate()
        times = parse(mm.communicate()[0])
        during = [t for ts, t in times if t0 <= ts <= t1]
        if not during:  # terminated before printing: rerun shorter
            res[c["name"]] = {"error": "no matmul timings", "frames": fr}
            continue
        mean = sum(during) / len(during)
        stolen_ms = sum(t - med for t in during) * 10
        res[c["name"]] = {"matmul_during_mean_ms": mean, "slowdown": mean / med - 1, "iterations_during": len(during),
                          "frames_wall_s": fr["wall_s"], "videos": fr["videos"], "jpegs": fr["jpegs"],
                          "gpu_s_taken_per_video": stolen_ms / 1000 / fr["videos"], "frames": fr}
    return res


def sample():
    """8 frames of each class: NVDEC's NV12 (raw) and the GPU path's JPEGs, for PSNR against sharp off the device."""
    res = {}
    tar = tarfile.open(os.path.join(OUT, "gpu_jpegs.tar"), "w")
    for c in WORKLOAD:
        idx = sorted({i for i, _, _ in c["jpegs"]})
        pick = [idx[(k * len(idx)) // 8] for k in range(8)]
        d = os.path.join(WORK, f"sample_{c['name']}")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d, mode=0o700)  # the helper writes only into a private folder of ours (issue 42)
        job = jobs_for(c, d, "pillow")
        job["frames"] = [f for f in job["frames"] if f["index"] in pick]
        sizes = sorted({(w, h) for _, w, h in c["jpegs"]})
        for f in job["frames"]:
            f["outputs"] = [{"width": w, "height": h, "path": os.path.join(d, f"{f['index']}_{w}x{h}.jpg")} for w, h in sizes]
        r = json.loads(sh([sys.executable, HELPER, "--job"], input=json.dumps(job)).stdout)
        for name in sorted(os.listdir(d)):
            tar.add(os.path.join(d, name), arcname=f"{c['name']}/{name}")
        raw = sh([FFMPEG, "-hide_banner", "-loglevel", "error", "-hwaccel", "cuda", "-hwaccel_output_format", "cuda", "-i", video(c), "-an",
                  "-vf", f"select='{select_expression(pick)}',hwdownload,format=nv12", "-fps_mode", "passthrough",
                  "-f", "rawvideo", "-pix_fmt", "nv12", os.path.join(OUT, f"frames_{c['name']}.nv12")])
        res[c["name"]] = {"indices": pick, "sizes": sizes, "job": r, "raw_rc": raw.returncode, "raw_err": raw.stderr[-300:]}
    tar.close()
    return res


def helpers():
    """More helpers than the 4 of `frames`, beside the matmul (what bounds (c) with GPU frames in the host model)."""
    res = {}
    c = next(k for k in WORKLOAD if k["name"] == "v720")
    w, cpu, _ = timed(lambda: sh([sys.executable, HELPER, "--probe", "--ffmpeg", FFMPEG]))
    res["helper_start"] = {"wall_s": w, "cpu_s": cpu}
    mm_code = MATMUL
    for p in (8, 12):
        mm = subprocess.Popen([sys.executable, "-c", mm_code, "60"], stdout=subprocess.DEVNULL)
        time.sleep(3)
        fr = helper_pool(c, "pillow", p, 3, f"h{p}")
        mm.terminate()
        mm.communicate()
        res[f"v720_pool{p}_busy"] = fr
        save()
    return res


def same():
    """v1 and v2 helpers on one job: every JPEG byte for byte (v2 only moves work, never changes a pixel)."""
    import hashlib

    c = next(k for k in WORKLOAD if k["name"] == "v720")
    digests = {}
    for tag, helper in (("v1", HELPER_V1), ("v2", HELPER)):
        d = os.path.join(WORK, f"same_{tag}")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d, mode=0o700)  # the helper writes only into a private folder of ours (issue 42)
        r = json.loads(sh([sys.executable, helper, "--job"], input=json.dumps(jobs_for(c, d, "pillow"))).stdout or "{}")
        digests[tag] = ({n: hashlib.md5(open(os.path.join(d, n), "rb").read()).hexdigest() for n in sorted(os.listdir(d))}, r)
    a, b = digests["v1"][0], digests["v2"][0]
    return {"files": [len(a), len(b)], "identical": len(a) == len(c["jpegs"]) and a == b,
            "differ": [n for n in a if a.get(n) != b.get(n)][:5], "v1": digests["v1"][1], "v2": digests["v2"][1]}


def ffthreads():
    """The helper's ffmpeg command alone (NVDEC + select + hwdownload + NV12 down a pipe), 8 at once, per -threads."""
    sys.path.insert(0, CARRY)
    from fp_gpu_frames import nvdec_command

    res = {}
    for c in WORKLOAD:
        idx = sorted({i for i, _, _ in c["jpegs"]})
        for t in (0, 1, 2, 4):
            cmd = nvdec_command(FFMPEG, video(c), idx, t)
            w, cpu, (rcs, errs) = timed(lambda: run_pool([cmd] * 8))
            res[f"{c['name']}_threads{t}"] = {"wall_s": w, "cpu_s_per_video": cpu / 8, "rc": rcs, "err": errs[0][-200:]}
    return res


PROFILE = r'''
import cProfile, io, json, pstats, sys, time
sys.path.insert(0, sys.argv[1])
import fp_gpu_frames as g
g.blocking_sync()
jobs = json.load(open(sys.argv[2]))
out = {"jobs": []}
for j in jobs[:-1]:
    out["jobs"].append(g.run_job(j))
pr = cProfile.Profile()
pr.enable()
out["profiled"] = g.run_job(jobs[-1])
pr.disable()
s = io.StringIO()
pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(25)
out["tottime"] = s.getvalue()[-6000:]
print(json.dumps(out))
'''


def profile():
    res = {}
    for c in WORKLOAD:
        jobs = []
        for v in range(4):
            d = os.path.join(WORK, f"prof_{c['name']}_{v}")
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d, mode=0o700)  # the helper writes only into a private folder of ours (issue 42)
            jobs.append(jobs_for(c, d, "pillow"))
        jobs_file = os.path.join(WORK, f"prof_{c['name']}.json")
        with open(jobs_file, "w") as f:
            json.dump(jobs, f)
        r = sh([sys.executable, "-c", PROFILE, CARRY, jobs_file])
        res[c["name"]] = json.loads(r.stdout) if r.returncode == 0 else {"rc": r.returncode, "err": r.stderr[-1500:]}
        log(res[c["name"]].get("tottime", "")[:3000])
    return res


def beside_matmul(work):
    """Run work() beside the model-shaped matmul: (its result, the matmul's mean slowdown, GPU ms taken from it)."""
    alone = R["phases"].get("pools", {}).get("matmul_alone_ms") or R["phases"].get("split", {}).get("matmul_alone_ms")
    mm = subprocess.Popen([sys.executable, "-c", MATMUL, "150"], stdout=subprocess.PIPE, text=True)
    lines = [mm.stdout.readline()]
    drain = threading.Thread(target=lambda: lines.extend(mm.stdout), daemon=True)
    drain.start()
    t0 = time.time()
    out = work()
    t1 = time.time()
    mm.terminate()
    mm.wait()
    drain.join(5)
    during = [float(b) for a, b in (l.split() for l in lines if l.strip()) if t0 <= float(a) <= t1]
    if not during:  # the matmul printed nothing while the work ran: say what it did instead of dividing by zero
        log(f"  no matmul timings during the work: rc {mm.returncode}, {len(lines)} lines, last {lines[-1:]}")
        return out, None, None
    return out, sum(during) / len(during) / alone - 1, sum(t - alone for t in during) * 10


def split():
    """Where the GPU path's GPU time goes (run 5): each part beside the matmul, 4 at once, 4 videos each."""
    res = R["phases"]["split"] = {}
    out = subprocess.run([sys.executable, "-c", MATMUL, "6"], capture_output=True, text=True).stdout
    times = sorted(float(l.split()[1]) for l in out.splitlines() if l.strip())
    res["matmul_alone_ms"] = times[len(times) // 2]
    sys.path.insert(0, CARRY)
    from fp_gpu_frames import nvdec_command

    c = next(k for k in WORKLOAD if k["name"] == "v720")
    idx = sorted({i for i, _, _ in c["jpegs"]})
    decode_only = [FFMPEG, "-hide_banner", "-loglevel", "error", "-nostdin", "-threads", "1", "-hwaccel", "cuda",
                   "-hwaccel_output_format", "cuda", "-i", video(c), "-an", "-f", "null", "-"]
    def cmd_pool(cmd):
        return lambda: [run_pool([cmd] * 4) for _ in range(4)]
    parts = os.environ.get("SPLIT_PARTS", "ffmpeg,helpers").split(",")
    for name, work in (("ffmpeg_decode_only", cmd_pool(decode_only)), ("ffmpeg_helper_command", cmd_pool(nvdec_command(FFMPEG, video(c), idx, 1)))):
        if "ffmpeg" not in parts:
            break
        if time.time() + 40 > DEADLINE:
            break
        w, cpu, (out, slow, taken_ms) = timed(lambda: beside_matmul(work))
        res[name] = {"wall_s": w, "cpu_s_per_video": cpu / 16, "matmul_slowdown": slow, "gpu_s_taken_per_video": taken_ms / 1000 / 16}
        log(f"  split {name}: {json.dumps(res[name])}")
        save()
    WARM_ONLY["on"] = True
    for batch in (16, 64):
        if time.time() + 45 > DEADLINE:
            break
        if "helpers" not in parts:
            break
        out, slow, taken_ms = beside_matmul(lambda: helper_pool(c, "pillow", 4, 4, f"split{batch}", {"FP_GPU_BATCH": str(batch)}))
        out.update({"matmul_slowdown": slow, "gpu_s_taken_per_video": taken_ms / 1000 / out["videos"] if taken_ms is not None else None})
        res[f"helpers_batch{batch}"] = out
        log(f"  split helpers batch {batch}: {json.dumps(out)[:700]}")
        save()
    return res


def tf32():
    """Run 6: the resize's sums in TF32 (tensor cores) against FP32: the pixels of one 720p job, then the GPU time
    taken beside the matmul by 4 helpers of each."""
    import numpy as np
    from PIL import Image

    res = R["phases"]["tf32"] = {}
    out = subprocess.run([sys.executable, "-c", MATMUL, "6"], capture_output=True, text=True).stdout
    times = sorted(float(l.split()[1]) for l in out.splitlines() if l.strip())
    res["matmul_alone_ms"] = R["phases"].setdefault("split", {})["matmul_alone_ms"] = times[len(times) // 2]
    c = next(k for k in WORKLOAD if k["name"] == "v720")
    dirs = {}
    for tag, tf in (("fp32", "0"), ("tf32", "1")):
        d = dirs[tag] = os.path.join(WORK, f"tf32_{tag}")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d, mode=0o700)  # the helper writes only into a private folder of ours (issue 42)
        sh([sys.executable, HELPER, "--job"], input=json.dumps(jobs_for(c, d, "pillow")), env={**os.environ, "FP_GPU_TF32": tf})
    same_bytes = differ_px = total_px = 0
    worst, sq = 0, 0.0
    for name in sorted(os.listdir(dirs["fp32"])):
        a_b = open(os.path.join(dirs["fp32"], name), "rb").read()
        b_b = open(os.path.join(dirs["tf32"], name), "rb").read()
        same_bytes += a_b == b_b
        a = np.asarray(Image.open(os.path.join(dirs["fp32"], name)), dtype=np.int16)
        b = np.asarray(Image.open(os.path.join(dirs["tf32"], name)), dtype=np.int16)
        diff = np.abs(a - b)
        differ_px += int((diff > 0).sum())
        total_px += diff.size
        worst = max(worst, int(diff.max()))
        sq += float((diff.astype(np.float64) ** 2).sum())
    mse = sq / max(1, total_px)
    res["pixels"] = {"files": len(os.listdir(dirs["fp32"])), "same_bytes": same_bytes, "differing_samples": differ_px / max(1, total_px),
                     "max_abs": worst, "psnr_db": (10 * np.log10(255 ** 2 / mse)) if mse else None}
    log(f"  tf32 pixels: {res['pixels']}")
    save()
    WARM_ONLY["on"] = True
    for tag, tf in (("fp32", "0"), ("tf32", "1")):
        if time.time() + 45 > DEADLINE:
            break
        o, slow, taken_ms = beside_matmul(lambda: helper_pool(c, "pillow", 4, 4, f"tf{tag}", {"FP_GPU_TF32": tf}))
        o.update({"matmul_slowdown": slow, "gpu_s_taken_per_video": taken_ms / 1000 / o["videos"]})
        res[f"helpers_{tag}"] = o
        log(f"  tf32 helpers {tag}: {json.dumps(o)[:600]}")
        save()
    return res


def busy(c, p, helper, tag, each=3):
    """A helper pool beside the model-shaped matmul: the pool's figures and the GPU time it took from the matmul."""
    alone = R["phases"].get("pools", {}).get("matmul_alone_ms")
    mm = subprocess.Popen([sys.executable, "-c", MATMUL, "150"], stdout=subprocess.PIPE, text=True)
    lines = [mm.stdout.readline()]  # the matmul runs: its first timing is out
    # Drained all along: a full pipe would stop the matmul, and with it the load the pool is measured beside.
    drain = threading.Thread(target=lambda: lines.extend(mm.stdout), daemon=True)
    drain.start()
    t0 = time.time()
    fr = helper_pool(c, "pillow", p, each, tag, helper=helper)
    t1 = time.time()
    mm.terminate()
    mm.wait()
    drain.join(5)
    during = [float(b) for a, b in (l.split() for l in lines if l.strip()) if t0 <= float(a) <= t1]
    if during and alone:
        fr["matmul_slowdown"] = sum(during) / len(during) / alone - 1
        fr["gpu_s_taken_per_video"] = sum(t - alone for t in during) * 10 / 1000 / fr["videos"]
    return fr


def pools():
    WARM_ONLY["on"] = True
    res = R["phases"]["pools"] = {}
    out = subprocess.run([sys.executable, "-c", MATMUL, "6"], capture_output=True, text=True).stdout
    times = sorted(float(l.split()[1]) for l in out.splitlines() if l.strip())
    res["matmul_alone_ms"] = times[len(times) // 2]
    by = {k["name"]: k for k in WORKLOAD}
    plan = [("v2", "v720", 8), ("v2", "v720", 12), ("v1", "v720", 4), ("v2", "v720", 4), ("v2", "v480", 12), ("v2", "v720", 16),
            ("v1", "v720", 8), ("v2", "v480", 8)]
    if os.environ.get("POOLS"):  # e.g. POOLS=v2:v720:4,v2:v480:4 (run 4)
        plan = [(t, n, int(p)) for t, n, p in (x.split(":") for x in os.environ["POOLS"].split(","))]
    each = int(os.environ.get("EACH", "3"))
    for tag, name, p in plan:
        if time.time() + 45 > DEADLINE:
            res[f"{tag}_{name}_p{p}"] = {"skipped": "deadline"}
            continue
        res[f"{tag}_{name}_p{p}"] = busy(by[name], p, HELPER_V1 if tag == "v1" else HELPER, f"{tag}p{p}", each)
        log(f"  pool {tag} {name} p{p}: {json.dumps(res[f'{tag}_{name}_p{p}'])[:600]}")
        save()
    return res


if __name__ == "__main__" and os.environ.get("PHASES"):
    table = {"env": env, "videos": make_videos, "helpers": helpers, "same": same, "ffthreads": ffthreads, "profile": profile, "pools": pools, "split": split, "tf32": tf32}
    for name in os.environ["PHASES"].split(","):
        phase(name, table[name], 10)
    save()
    sys.exit(0)

if __name__ == "__main__":
    phase("env", env, 10)
    phase("videos", make_videos, 60)
    phase("equal", equal, 40)
    phase("sample", sample, 20)
    phase("jpeg", jpeg_rates, 20)
    phase("decode", decode, 60)
    phase("frames", frames, 90)
    phase("interference", interference, 60)
    R["ended"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    save()
    log("done")
