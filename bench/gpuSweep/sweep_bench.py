#!/usr/bin/env python3
"""The whole sweep with frames on the CPU and on the GPU (issue 45): the product's own `fpsweep run` on textured
fixtures of two sizes, each run sampled through /proc so that its wall and CPU-s split by process.

  python3 sweep_bench.py fixtures --cli APP/dist/cli.js --work DIR [--scales 1,4]
      Makes DIR/p<scale> for each scale: `fpsweep sample --scale S`, then every video re-encoded from textured
      content (testsrc2 + temporal noise, the same size, frame count and timestamps: bench/frames.ts's "natural"
      videos; a replica of scale S reuses the scale-1 encode of its recipe, found by its meta.json).
  python3 sweep_bench.py runs --cli APP/dist/cli.js --work DIR --out OUT [--scales 1,4] [--order cpu,gpu,gpu,cpu]
      [--deadline S] [--endpoint URL]
      For each fixture and each mode in order: a fresh copy of the fixture (videos hard-linked), `fpsweep run
      --package COPY --frames-on MODE`, sampled every 0.1 s. Results go to OUT/sweep.json as they come.
  python3 sweep_bench.py nvjpeg --work DIR --out OUT
      nvJPEG's 4:2:0 against pillow's on three images (SPEC rules, PSNR, CPU a JPEG): OUT/nvjpeg.json.
  python3 sweep_bench.py samebytes --work DIR --out OUT
      The helper's JPEGs with its jobs on 4 threads against one job a process, byte for byte: OUT/samebytes.json.
  python3 sweep_bench.py summary OUT/sweep.json
      The table: wall, start-up (first row), CPU-s by process, marginal video between the two sizes.

Processes are told apart by their command line: the run (node .../cli.js), the frame helpers (fp_gpu_frames.py),
ffmpeg (decodes of either path), the servers (the stand-in vLLM), other. A process's CPU-s is its last sampled
utime + stime; the run's total is wait4's (every descendant it reaped); 'unseen' is the difference (processes that
lived less than a sample, and each one's last 0.1 s).
"""
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

TICK = os.sysconf("SC_CLK_TCK")
SAMPLE_S = 0.1
CLASSES = ("run", "helpers", "ffmpeg", "servers", "other")


def arg(name, default=None):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def node_bin():
    return os.environ.get("NODE_BIN", "node")


def ffmpeg_bin():
    return os.environ.get("FFMPEG_BIN", "ffmpeg")


# ---------------------------------------------------------------- fixtures

def meta_key(meta):
    ts = meta["timestamps"]
    return (meta["width"], meta["height"], meta["n_frames"], tuple(round(t, 3) for t in ts[:4]))


def textured(meta, out):
    """meta.json's video again from testsrc2 + noise: same size, frame count and timestamps (plan.ts's formula)."""
    ts = meta["timestamps"]
    start = round(ts[0] * 1000)
    spacing = round((ts[3] - ts[0]) * 1000 / 3)
    jitter = round(ts[1] * 1000) - start - spacing
    setpts = f"settb=1/1000,setpts={start}+N*{spacing}+{jitter}*mod(N\\,3)"
    tmp = out + ".textured.mp4"
    subprocess.run([ffmpeg_bin(), "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                    f"testsrc2=size={meta['width']}x{meta['height']}:rate=2,noise=alls=5:allf=t",
                    "-frames:v", str(meta["n_frames"]), "-vf", setpts, "-c:v", "libx264", "-preset", "veryfast",
                    "-crf", "28", "-g", "20", "-threads", "2", "-pix_fmt", "yuv420p", "-fps_mode", "passthrough",
                    "-r", "1000", "-video_track_timescale", "1000", tmp], check=True)
    os.replace(tmp, out)


def videos_of(pkg):
    root = os.path.join(pkg, "data", "store", "normalized")
    for h in sorted(os.listdir(root)):
        with open(os.path.join(root, h, "meta.json")) as f:
            yield os.path.join(root, h, "video.mp4"), json.load(f)


def fixtures():
    cli, work = arg("--cli"), arg("--work")
    scales = [int(s) for s in arg("--scales", "1,4").split(",")]
    os.makedirs(work, exist_ok=True)
    t0 = time.time()
    made = {}

    def sample(s):
        pkg = os.path.join(work, f"p{s}")
        if not os.path.isdir(os.path.join(pkg, "items")):
            subprocess.run([node_bin(), cli, "sample", "--out", pkg, "--scale", str(s)], check=True, stdout=subprocess.DEVNULL)
        return pkg

    with ThreadPoolExecutor(len(scales)) as ex:
        pkgs = dict(zip(scales, ex.map(sample, scales)))
    print(f"fixtures: samples made in {time.time() - t0:.1f} s", flush=True)
    base = pkgs[min(scales)]
    todo = list(videos_of(base))
    with ThreadPoolExecutor(max(1, os.cpu_count() // 2)) as ex:
        list(ex.map(lambda vm: textured(vm[1], vm[0]), todo))
    for path, meta in todo:
        made[meta_key(meta)] = path
    for s, pkg in pkgs.items():
        if pkg == base:
            continue
        for path, meta in videos_of(pkg):
            os.remove(path)
            os.link(made[meta_key(meta)], path)  # the runs never write a video
    info = {s: {"videos": sum(1 for _ in videos_of(p)), "bytes": sum(os.path.getsize(v) for v, _ in videos_of(p))} for s, p in pkgs.items()}
    print(f"fixtures: textured in {time.time() - t0:.1f} s: {json.dumps(info)}", flush=True)
    return 0


# ---------------------------------------------------------------- sampling

def proc_stat(pid):
    """(ppid, utime+stime ticks, starttime ticks, comm) or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read().decode(errors="replace")
    except OSError:
        return None
    r = raw.rindex(")")
    fields = raw[r + 2 :].split()
    return int(fields[1]), int(fields[11]) + int(fields[12]), int(fields[19]), raw[raw.index("(") + 1 : r]


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def classify(cmd, comm):
    if "fp_gpu_frames.py" in cmd:
        return "helpers"
    if comm in ("ffmpeg", "ffprobe") or os.path.basename(cmd.split(" ")[0]) in ("ffmpeg", "ffprobe"):
        return "ffmpeg"
    if "standin-vllm" in cmd or "fake-vllm" in cmd:
        return "servers"
    if "cli.js" in cmd or "worker.js" in cmd:
        return "run"
    return "other"


def host_busy():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]
    return sum(v[:8]) - idle, sum(v[:8])


class Sampler:
    """The run's process tree (the root and every process whose parent is in it, started after `since`, boot
    ticks): each process's last CPU ticks, by class."""

    def __init__(self, since_ticks, watch_file):
        self.since = since_ticks
        self.root = None
        self.seen = {}  # pid -> [class, ticks, cmd]
        self.watch = watch_file
        self.watch_size0 = os.path.getsize(watch_file) if os.path.exists(watch_file) else 0
        self.first_row_at = None
        self.t0 = time.perf_counter()
        self.stop = threading.Event()
        self.peak_procs = 0
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def loop(self):
        while not self.stop.is_set():
            self.once()
            time.sleep(SAMPLE_S)
        self.once()

    def once(self):
        if self.root is None:
            return
        stats = {}
        for name in os.listdir("/proc"):
            if name.isdigit():
                st = proc_stat(int(name))
                if st and st[2] >= self.since:
                    stats[int(name)] = st
        live, grew = 0, True
        while grew:  # a child may come before its parent in the listing
            grew = False
            for pid, st in stats.items():
                if pid in self.seen or not (pid == self.root or st[0] in self.seen):
                    continue
                cmd = cmdline(pid)
                cls = classify(cmd, st[3])
                # ffmpeg: keep its input (the video, whose meta.json gives its class); others: the start of the line
                keep = cmd.split(" -i ", 1)[1].split(" ", 1)[0] if cls == "ffmpeg" and " -i " in cmd else cmd[:160]
                self.seen[pid] = [cls, 0, keep]
                grew = True
        for pid, st in stats.items():
            if pid in self.seen:
                live += 1
                self.seen[pid][1] = max(self.seen[pid][1], st[1])
        self.peak_procs = max(self.peak_procs, live)
        if self.first_row_at is None and os.path.exists(self.watch) and os.path.getsize(self.watch) > self.watch_size0:
            self.first_row_at = time.perf_counter() - self.t0

    def by_class(self):
        out = {c: 0.0 for c in CLASSES}
        counts = {c: 0 for c in CLASSES}
        for cls, ticks, _ in self.seen.values():
            out[cls] += ticks / TICK
            counts[cls] += 1
        return out, counts


def boot_ticks_now():
    with open("/proc/uptime") as f:
        return int(float(f.read().split()[0]) * TICK) - 1


def copy_fixture(src, dst):
    """The package again, its videos hard-linked (never written by a run) and everything else copied."""
    if os.path.exists(dst):
        shutil.rmtree(dst)

    def cp(s, d):
        if s.endswith(".mp4"):
            os.link(s, d)
        else:
            shutil.copy2(s, d)

    shutil.copytree(src, dst, copy_function=cp, symlinks=True)


def count_files(root, ext=".jpg"):
    n, b = 0, 0
    for dp, _, fs in os.walk(root):
        for f in fs:
            if f.endswith(ext):
                n += 1
                b += os.path.getsize(os.path.join(dp, f))
    return n, b


MATMUL = r'''
import sys, time, torch
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


class Beside:
    """A model-shaped bf16 matmul (Qwen2.5-7B's MLP up-projection at 8192 tokens, bench/gpuFrames' MATMUL) running
    beside the whole sweep: the GPU time the run took from it, end to end (helpers' CUDA start, NVDEC, resize, JPEG).
    Its time alone is measured first, on the quiet GPU."""

    @staticmethod
    def alone():
        """The matmul's median ms alone on the quiet GPU (5 s of it)."""
        out = subprocess.run([sys.executable, "-c", MATMUL, "5"], capture_output=True, text=True).stdout
        times = sorted(float(l.split()[1]) for l in out.splitlines() if l.strip())
        return times[len(times) // 2] if times else None

    def __init__(self, alone_ms=None):
        self.alone_ms = alone_ms if alone_ms is not None else Beside.alone()
        self.proc = subprocess.Popen([sys.executable, "-c", MATMUL, "600"], stdout=subprocess.PIPE, text=True)
        self.lines = [self.proc.stdout.readline()]  # running: its first timing is out
        self.drain = threading.Thread(target=lambda: self.lines.extend(self.proc.stdout), daemon=True)
        self.drain.start()
        self.t0 = time.time()

    def stop(self):
        t1 = time.time()
        self.proc.terminate()
        self.proc.wait()
        self.drain.join(5)
        during = [float(b) for a, b in (l.split() for l in self.lines if l.strip()) if self.t0 <= float(a) <= t1]
        if not during or not self.alone_ms:
            return {"error": f"no matmul timings ({len(self.lines)} lines, alone {self.alone_ms})"}
        return {"matmul_alone_ms": self.alone_ms, "matmul_during_mean_ms": sum(during) / len(during),
                "slowdown": sum(during) / len(during) / self.alone_ms - 1, "iterations_during": len(during),
                "gpu_s_taken": sum(t - self.alone_ms for t in during) * 10 / 1000}


def one_run(cli, fixture, mode, work, tag, endpoint):
    pkg = os.path.join(work, f"run-{tag}")
    copy_fixture(fixture, pkg)
    env = dict(os.environ)
    # mode "gpu:8": --frames-on gpu --decode-workers 8 (helpers at once on the GPU path, decode workers on the CPU's);
    # "+NAME=VALUE" parts set the run's environment (gpu+FP_GPU_JPEG=pillow); "+beside" runs the matmul beside it.
    mode, *extras = mode.split("+")
    beside = "beside" in extras
    prof_dir = None
    if "prof" in extras:  # node's own profiler in every node process of the run (NODE_OPTIONS reaches its children)
        prof_dir = os.path.join(work, f"prof-{tag}")
        shutil.rmtree(prof_dir, ignore_errors=True)
        os.makedirs(prof_dir)
        env["NODE_OPTIONS"] = f"--cpu-prof --cpu-prof-dir={prof_dir}"
    if "tee" in extras:  # the jobs the run sends its helpers, kept for parts.py: PYTHON reads them through tee
        wrapper = os.path.join(work, "python-tee")
        with open(wrapper, "w") as f:
            f.write(f'#!/bin/bash\ntee -a {os.path.join(work, f"jobs-{tag}.jsonl")} | exec {sys.executable} "$@"\n')
        os.chmod(wrapper, 0o755)
        env["PYTHON"] = wrapper
    for e in extras:
        if "=" in e:
            k, v = e.split("=", 1)
            env[k] = v
    where, _, workers = mode.partition(":")
    argv = [node_bin(), cli, "run", "--package", pkg, "--frames-on", where] + (["--decode-workers", workers] if workers else [])
    if endpoint:
        argv += ["--endpoints", endpoint, "--endpoint-frames", "file"]
    csv = os.path.join(pkg, "results", "conditions_results.csv")
    busy0, all0 = host_busy()
    since = boot_ticks_now()
    sampler = Sampler(since, csv)
    sampler.thread.start()
    mm = Beside() if beside else None
    t0 = time.perf_counter()
    log_path = os.path.join(work, f"run-{tag}.log")
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env)
        sampler.root = proc.pid
        _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    interference = mm.stop() if mm else None
    sampler.stop.set()
    sampler.thread.join()
    busy1, all1 = host_busy()
    proc.returncode = os.waitstatus_to_exitcode(status)
    cls, counts = sampler.by_class()
    # The CPU path's decodes by video (ffmpeg's input): CPU-s and the video's stored size and frames.
    ffmpeg_by_video = {}
    for c, ticks, keep in sampler.seen.values():
        if c == "ffmpeg" and keep.endswith(".mp4"):
            e = ffmpeg_by_video.setdefault(os.path.basename(os.path.dirname(keep)), [0.0, 0])
            e[0] += ticks / TICK
            e[1] += 1
    total = ru.ru_utime + ru.ru_stime
    with open(log_path, errors="replace") as f:
        text = f.read()
    lines = text.splitlines()
    rows = 0
    with open(csv) as f:
        rows = sum(1 for _ in f)
    jpegs, jpeg_bytes = count_files(os.path.join(pkg, ".fpsweep", "frames"))
    # Helpers write their line to the run's stderr at once: lines may run together, so each is decoded up to its end.
    helper_stats = []
    for part in text.split("fp_gpu_frames stats: ")[1:]:
        try:
            helper_stats.append(json.JSONDecoder().raw_decode(part)[0])
        except ValueError:
            pass
    res = {
        "tag": tag, "mode": mode, "rc": proc.returncode, "wall_s": round(wall, 3),
        "first_row_s": None if sampler.first_row_at is None else round(sampler.first_row_at, 3),
        "cpu_s_total": round(total, 2), "cpu_s_by_class": {k: round(v, 2) for k, v in cls.items()},
        "cpu_s_unseen": round(total - sum(v for k, v in cls.items()), 2), "processes": counts,
        "peak_processes": sampler.peak_procs, "host_busy_core_s": round((busy1 - busy0) / TICK, 2), "host_cores": os.cpu_count(),
        "rows_in_csv": rows, "jpegs": jpegs, "jpeg_bytes": jpeg_bytes, "max_rss_kib": ru.ru_maxrss,
        "frames_lines": [l for l in lines if "frames on" in l or "GPU frames" in l or "helpers" in l][:8],
        "helper_stats": helper_stats, "log_tail": lines[-6:], "ffmpeg_cpu_s_by_video": ffmpeg_by_video,
        "run_lines": [l for l in lines if l.startswith("frames:") or "frames: " in l][:6],
        "gpu_videos": gpu_videos(lines), "beside": interference, "env": {k: env[k] for k in env if k.startswith("FP_GPU_")},
        "profile": profile_summary(prof_dir, {pid: c for pid, (c, _, _) in sampler.seen.items()}) if prof_dir else None,
    }
    return res, pkg


def profile_summary(prof_dir, classes, top=40):
    """node --cpu-prof's files, self time by function (name, file:line), each process by its class (run or servers):
    the top functions and the totals by file, in ms."""
    out = {}
    for name in sorted(os.listdir(prof_dir)):
        if not name.endswith(".cpuprofile"):
            continue
        try:
            pid = int(name.split(".")[2])
        except (IndexError, ValueError):
            pid = -1
        with open(os.path.join(prof_dir, name)) as f:
            prof = json.load(f)
        nodes = {n["id"]: n for n in prof["nodes"]}
        self_us = {}
        for sid, dt in zip(prof["samples"], prof["timeDeltas"]):
            self_us[sid] = self_us.get(sid, 0) + dt
        by_fn, by_file = {}, {}
        for nid, us in self_us.items():
            cf = nodes[nid]["callFrame"]
            if cf.get("functionName") == "(idle)":  # the event loop waiting: no CPU
                continue
            url = cf.get("url", "")
            fname = os.path.basename(url) or "(native)"
            key = f"{cf.get('functionName') or '(anonymous)'} {fname}:{cf.get('lineNumber', -1) + 1}"
            by_fn[key] = by_fn.get(key, 0) + us
            by_file[fname] = by_file.get(fname, 0) + us
        total = sum(self_us.values())
        label = f"{classes.get(pid, 'other')}-{pid}"
        out[label] = {"total_ms": round(total / 1000), "by_file_ms": {k: round(v / 1000) for k, v in sorted(by_file.items(), key=lambda x: -x[1])[:15]},
                      "top_ms": {k: round(v / 1000) for k, v in sorted(by_fn.items(), key=lambda x: -x[1])[:top]}}
    return out


def gpu_videos(lines):
    """Videos the run made on the GPU, from its `frames: N videos on the GPU` line."""
    for l in lines:
        if "videos on the GPU" in l:
            try:
                return int(l.split("frames: ", 1)[1].split(" videos on the GPU")[0])
            except (IndexError, ValueError):
                pass
    return None


def psnr_compare(a_root, b_root, limit=1500):
    """JPEGs of the same store name in both runs: identical bytes, and PSNR of the decoded pixels (PIL + numpy)."""
    try:
        import numpy as np
        from PIL import Image
    except ImportError as e:
        return {"error": f"no PIL/numpy: {e}"}
    names = []
    for dp, _, fs in os.walk(a_root):
        for f in fs:
            if f.endswith(".jpg"):
                rel = os.path.relpath(os.path.join(dp, f), a_root)
                if os.path.exists(os.path.join(b_root, rel)):
                    names.append(rel)
    names.sort()
    step = max(1, len(names) // limit)
    same, psnrs, sizes_differ = 0, [], 0
    for rel in names[::step]:
        a, b = open(os.path.join(a_root, rel), "rb").read(), open(os.path.join(b_root, rel), "rb").read()
        if a == b:
            same += 1
            continue
        ia, ib = Image.open(os.path.join(a_root, rel)), Image.open(os.path.join(b_root, rel))
        if ia.size != ib.size:
            sizes_differ += 1
            continue
        x = np.asarray(ia.convert("RGB"), dtype=np.float64)
        y = np.asarray(ib.convert("RGB"), dtype=np.float64)
        mse = float(((x - y) ** 2).mean())
        psnrs.append(99.0 if mse == 0 else 10 * np.log10(255.0 ** 2 / mse))
    checked = len(names[::step])
    # Every SPEC rule on the GPU run's bytes (fp_gpu_frames.jpeg_spec_problems, the node side's check in Python).
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import fp_gpu_frames as helper

    spec_bad, spec_examples = 0, []
    for rel in names[::step]:
        data = open(os.path.join(b_root, rel), "rb").read()
        w, h = Image.open(os.path.join(b_root, rel)).size
        problems = helper.jpeg_spec_problems(data, w, h)
        if problems:
            spec_bad += 1
            spec_examples = (spec_examples + [f"{rel}: {problems}"])[:3]
    return {"gpu_spec_violations": spec_bad, "gpu_spec_examples": spec_examples,"common": len(names), "checked": checked, "identical_bytes": same, "sizes_differ": sizes_differ,
            "psnr_min": round(min(psnrs), 2) if psnrs else None, "psnr_mean": round(sum(psnrs) / len(psnrs), 2) if psnrs else None,
            "psnr_p01": round(sorted(psnrs)[len(psnrs) // 100], 2) if psnrs else None}


def same_bytes(a_root, b_root):
    """JPEGs of the same store name in both stores: how many, how many byte-identical, the first few that differ."""
    common, same, differ = 0, 0, []
    for dp, _, fs in os.walk(a_root):
        for f in fs:
            if not f.endswith(".jpg"):
                continue
            rel = os.path.relpath(os.path.join(dp, f), a_root)
            other = os.path.join(b_root, rel)
            if not os.path.exists(other):
                continue
            common += 1
            with open(os.path.join(dp, f), "rb") as x, open(other, "rb") as y:
                if x.read() == y.read():
                    same += 1
                elif len(differ) < 3:
                    differ.append(rel)
    return {"common": common, "identical_bytes": same, "differ_examples": differ}


def runs():
    cli, work, out = arg("--cli"), arg("--work"), arg("--out")
    scales = [int(s) for s in arg("--scales", "1,4").split(",")]
    order = arg("--order", "cpu,gpu,gpu,cpu").split(",")
    # --extra gpu:8,…: more runs on the largest fixture once the order is done (helpers per GPU by measurement)
    extra = [m for m in arg("--extra", "").split(",") if m]
    deadline = time.time() + float(arg("--deadline", "1e9"))
    endpoint = arg("--endpoint")
    os.makedirs(out, exist_ok=True)
    report = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "cores": os.cpu_count(), "order": order, "runs": [], "compare": {}}
    kept = {}
    for s in scales:
        fixture = os.path.join(work, f"p{s}")
        videos = sum(1 for _ in videos_of(fixture))
        for k, mode in enumerate(order + (extra if s == max(scales) else [])):
            # A run of this size took at most this long so far: no start past the deadline.
            est = max([r["wall_s"] for r in report["runs"] if r["scale"] == s] or [0]) + 20
            if time.time() + est > deadline:
                print(f"runs: skip scale {s} {mode} #{k}: {est:.0f} s would pass the deadline", flush=True)
                report.setdefault("skipped", []).append(f"scale {s} {mode} #{k}")
                continue
            tag = f"s{s}-{k}-" + "".join(c if c.isalnum() or c in "-_." else "_" for c in mode)
            res, pkg = one_run(cli, fixture, mode, work, tag, endpoint)
            mode = mode.replace("+tee", "")  # capturing the helpers' jobs changes nothing the run does
            res.update({"scale": s, "videos": videos, "k": k, "mode": mode})
            report["runs"].append(res)
            print(f"runs: {tag}: rc {res['rc']} wall {res['wall_s']} s first row {res['first_row_s']} s CPU {res['cpu_s_total']} s "
                  f"{json.dumps(res['cpu_s_by_class'])} unseen {res['cpu_s_unseen']} rows {res['rows_in_csv']} jpegs {res['jpegs']}", flush=True)
            for l in res["frames_lines"]:
                print(f"   {l}", flush=True)
            if res["rc"] != 0:
                print("   " + "\n   ".join(res["log_tail"]), flush=True)
            store = os.path.join(pkg, ".fpsweep", "frames")
            if s == max(scales) and mode not in kept and os.path.isdir(store):  # the larger run: most videos GPU-made
                kept[mode] = os.path.join(work, f"store-{mode}")
                if os.path.exists(kept[mode]):
                    shutil.rmtree(kept[mode])
                os.rename(store, kept[mode])
            shutil.rmtree(pkg, ignore_errors=True)
            with open(os.path.join(out, "sweep.json"), "w") as f:
                json.dump(report, f, indent=1)
    if "cpu" in kept and "gpu" in kept:
        report["compare"] = psnr_compare(kept["cpu"], kept["gpu"])
        print(f"compare cpu vs gpu JPEGs: {json.dumps(report['compare'])}", flush=True)
    # Knobs change speed, never bytes: every other GPU variant's JPEGs against the plain gpu run's, byte for byte.
    for m in sorted(k for k in kept if k.startswith("gpu") and k != "gpu" and "gpu" in kept):
        report.setdefault("compare_variants", {})[m] = same_bytes(kept["gpu"], kept[m])
        print(f"compare gpu vs {m} JPEGs: {json.dumps(report['compare_variants'][m])}", flush=True)
    with open(os.path.join(out, "sweep.json"), "w") as f:
        json.dump(report, f, indent=1)
    print(summary_text(report), flush=True)
    return 0


# ---------------------------------------------------------------- ffmpeg's own costs

def ffcost():
    """Where an NVDEC decode's host CPU goes (issue 45): each variant run alone on the quiet machine, its CPU-s from
    getrusage(RUSAGE_CHILDREN), on the fixture's longest and shortest 1280x720 videos: CUDA's start alone, NVDEC
    through the nvdec hwaccel or h264_cuvid with nothing downloaded, the helper's own command (every frame selected
    and downloaded as NV12 to /dev/null), and the CPU decode (-threads 4) for scale."""
    import resource

    work, out = arg("--work"), arg("--out")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import fp_gpu_frames as helper

    ff = ffmpeg_bin()
    vids = sorted((m["n_frames"], p) for p, m in videos_of(os.path.join(work, f"p{arg('--scale', '1')}")) if (m["width"], m["height"]) == (1280, 720))
    picks = {"short": vids[0], "long": vids[-1]}
    base = [ff, "-hide_banner", "-loglevel", "error", "-nostdin"]
    res = {}
    for name, (n, v) in picks.items():
        variants = {
            "cuda_start_only": base + ["-init_hw_device", "cuda=cu", "-f", "lavfi", "-i", "testsrc2=s=64x64:d=0.04", "-frames:v", "1", "-f", "null", "-"],
            "nvdec_decode_null": base + ["-threads", "1", "-hwaccel", "cuda", "-hwaccel_output_format", "cuda", "-i", v, "-an", "-f", "null", "-"],
            "cuvid_decode_null": base + ["-threads", "1", "-hwaccel", "cuda", "-hwaccel_output_format", "cuda", "-c:v", "h264_cuvid", "-i", v, "-an", "-f", "null", "-"],
            "helper_command_all_frames": helper.nvdec_command(ff, v, list(range(n)), 1),
            "cpu_decode_null_t4": base + ["-threads", "4", "-i", v, "-an", "-f", "null", "-"],
        }
        for vname, cmd in variants.items():
            runs = []
            for _ in range(3 if name == "short" else 2):
                r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                t0 = time.perf_counter()
                rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE).returncode
                w = time.perf_counter() - t0
                r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                runs.append({"rc": rc, "wall_s": round(w, 3), "cpu_s": round(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime, 3)})
            cpu = sorted(r["cpu_s"] for r in runs)[len(runs) // 2]
            res[f"{name}/{vname}"] = {"frames": n, "runs": runs, "cpu_s_median": cpu}
            print(f"ffcost {name} ({n} frames) {vname}: CPU-s {[r['cpu_s'] for r in runs]} wall {[r['wall_s'] for r in runs]} rc {[r['rc'] for r in runs]}", flush=True)
    with open(os.path.join(out, "ffcost.json"), "w") as f:
        json.dump(res, f, indent=1)
    return 0


# ---------------------------------------------------------------- the helper's bytes, jobs on threads or not

def samebytes():
    """Knobs change speed, never bytes (issue 45): the helper (this folder's fp_gpu_frames.py) serving every video of
    the scale-1 fixture with its jobs on 4 threads (--serve --jobs 4, the default) and one job a process (--serve),
    every video on the GPU in both (no CPU path between), every 8th stored frame at the stored size and at 224 high;
    each output compared byte for byte. Results in OUT/samebytes.json."""
    import tempfile

    work, out = arg("--work"), arg("--out")
    helper = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fp_gpu_frames.py")
    vids = list(videos_of(os.path.join(work, "p1")))
    root = tempfile.mkdtemp(prefix="samebytes-", dir=work)
    res = {"videos": len(vids)}
    names = None
    for mode, extra in (("jobs4", ["--jobs", "4"]), ("jobs1", [])):
        jobs, files = [], []
        for k, (video, m) in enumerate(vids):
            folder = os.path.join(root, mode, str(k))
            os.makedirs(folder, mode=0o700)
            os.chmod(folder, 0o700)
            w, h = m["width"], m["height"]
            small = (max(2, (w * 224 // h) // 2 * 2), 224) if h > 224 else (w, h)
            frames = []
            for i in range(0, m["n_frames"], 8):
                outs = []
                for ow, oh in ((w, h), small):
                    p = os.path.join(folder, f"{i:05d}_{ow}x{oh}.jpg")
                    outs.append({"width": ow, "height": oh, "path": p})
                    files.append(os.path.relpath(p, os.path.join(root, mode)))
                frames.append({"index": i, "outputs": outs})
            jobs.append({"id": k + 1, "ffmpeg": ffmpeg_bin(), "video": video, "width": w, "height": h, "quality": 85,
                         "encoder": "spec", "frames": frames})
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, helper, "--serve", *extra], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        ready = json.loads(proc.stdout.readline())
        for j in jobs:
            proc.stdin.write(json.dumps(j) + "\n")
        proc.stdin.flush()
        answers = [json.loads(proc.stdout.readline()) for _ in jobs]
        proc.stdin.close()
        proc.wait()
        res[mode] = {"ready": {k: ready.get(k) for k in ("ready", "warm_s", "jobs", "warm_error")}, "wall_s": round(time.perf_counter() - t0, 2),
                     "ok": sum(1 for a in answers if a.get("ok")), "errors": [a.get("error") for a in answers if not a.get("ok")][:3],
                     "ids": sorted(a.get("id") for a in answers if a.get("id") is not None) == list(range(1, len(jobs) + 1))}
        names = files
    same, differ = 0, []
    for rel in names or []:
        a, b = os.path.join(root, "jobs4", rel), os.path.join(root, "jobs1", rel)
        if os.path.exists(a) and os.path.exists(b) and open(a, "rb").read() == open(b, "rb").read():
            same += 1
        elif len(differ) < 5:
            differ.append(rel)
    res.update({"outputs": len(names or []), "identical_bytes": same, "differ_examples": differ})
    print(f"samebytes: {json.dumps(res)}", flush=True)
    with open(os.path.join(out, "samebytes.json"), "w") as f:
        json.dump(res, f, indent=1)
    shutil.rmtree(root, ignore_errors=True)
    return 0


# ---------------------------------------------------------------- nvJPEG 4:2:0, checked again

def nvjpeg_check():
    """Why the helper's warm-up refused nvJPEG's 4:2:0 (s17: "PSNR 27.1 dB" on its wrap-around test pattern): each
    test image encoded by nvJPEG (the helper's NvJpeg420) and by pillow (the helper's default, libjpeg 4:2:0 q85),
    both checked against the SPEC rules, decoded back by pillow and compared with the image and with each other; and
    the host CPU a JPEG each way. Images: the warm-up's pattern, a smooth gradient, and a textured fixture frame."""
    import io

    import numpy as np
    import torch
    from PIL import Image

    out = arg("--out")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import fp_gpu_frames as helper

    h, w = 72, 128
    yy, xx = np.mgrid[0:h, 0:w]
    images = {"warmup_pattern": np.stack([(xx * 2) % 256, (yy * 3) % 256, ((xx + yy) * 5) % 256]).astype(np.uint8)}
    H, W = 720, 1280
    gy, gx = np.mgrid[0:H, 0:W]
    images["gradient_720p"] = np.stack([gx * 255 // (W - 1), gy * 255 // (H - 1), (gx + gy) * 255 // (W + H - 2)]).astype(np.uint8)
    vids = sorted(p for p, m in videos_of(os.path.join(arg("--work"), "p1")) if (m["width"], m["height"]) == (1280, 720))
    if vids:
        raw = subprocess.run([ffmpeg_bin(), "-v", "error", "-i", vids[0], "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                             capture_output=True).stdout
        if len(raw) == H * W * 3:
            images["fixture_frame_720p"] = np.frombuffer(raw, np.uint8).reshape(H, W, 3).transpose(2, 0, 1).copy()
    res = {}
    try:
        enc = helper.NvJpeg420(85)
        res["library"] = enc.path
    except Exception as e:
        res["error"] = f"{type(e).__name__}: {e}"
        enc = None

    def psnr(a, b):
        mse = float(((a.astype(np.float64) - b.astype(np.float64)) ** 2).mean())
        return 99.0 if mse == 0 else round(10 * np.log10(255.0 ** 2 / mse), 2)

    for name, rgb in images.items():
        hwc = rgb.transpose(1, 2, 0)
        row = {}
        c0 = time.process_time()
        buf = io.BytesIO()
        for _ in range(10):
            buf = io.BytesIO()
            Image.fromarray(hwc).save(buf, format="JPEG", quality=85, subsampling=2, optimize=False, progressive=False)
        row["pillow_cpu_ms"] = round((time.process_time() - c0) * 100, 3)
        pil = buf.getvalue()
        pil_back = np.asarray(Image.open(io.BytesIO(pil)).convert("RGB"))
        row.update({"pillow_bytes": len(pil), "pillow_spec": helper.jpeg_spec_problems(pil, rgb.shape[2], rgb.shape[1]),
                    "pillow_psnr_vs_image": psnr(pil_back, hwc)})
        if enc is not None:
            t = torch.from_numpy(rgb).unsqueeze(0).cuda()
            c0 = time.process_time()
            for _ in range(10):
                nv = enc.encode([t])[0]
            row["nvjpeg_cpu_ms"] = round((time.process_time() - c0) * 100, 3)
            nv_back = np.asarray(Image.open(io.BytesIO(nv)).convert("RGB"))
            row.update({"nvjpeg_bytes": len(nv), "nvjpeg_spec": helper.jpeg_spec_problems(nv, rgb.shape[2], rgb.shape[1]),
                        "nvjpeg_psnr_vs_image": psnr(nv_back, hwc), "nvjpeg_psnr_vs_pillow": psnr(nv_back, pil_back),
                        # 4:2:0 of pillow's decode is fancy-upsampled; the chroma alone against the image's, per channel
                        "nvjpeg_psnr_by_channel": [psnr(nv_back[..., k], hwc[..., k]) for k in range(3)],
                        "pillow_psnr_by_channel": [psnr(pil_back[..., k], hwc[..., k]) for k in range(3)]})
        res[name] = row
        print(f"nvjpeg {name}: {json.dumps(row)}", flush=True)
    with open(os.path.join(out, "nvjpeg.json"), "w") as f:
        json.dump(res, f, indent=1)
    return 0


# ---------------------------------------------------------------- summary

def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def summary_text(report):
    rs = [r for r in report["runs"] if r["rc"] == 0]
    out = ["| videos | frames on | runs | wall s | first row s | CPU-s total | run | helpers | ffmpeg | servers | other | unseen |",
           "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    agg = {}
    for r in rs:
        agg.setdefault((r["videos"], r["mode"]), []).append(r)
    for (v, m), g in sorted(agg.items()):
        c = lambda k: mean([x["cpu_s_by_class"][k] for x in g])
        out.append(f"| {v} | {m} | {len(g)} | {', '.join('%.2f' % x['wall_s'] for x in g)} | "
                   f"{', '.join('-' if x['first_row_s'] is None else '%.1f' % x['first_row_s'] for x in g)} | "
                   f"{', '.join('%.1f' % x['cpu_s_total'] for x in g)} | {c('run'):.1f} | {c('helpers'):.1f} | {c('ffmpeg'):.1f} | "
                   f"{c('servers'):.1f} | {c('other'):.1f} | {mean([x['cpu_s_unseen'] for x in g]):.1f} |")
    for r in rs:
        if r.get("helper_stats"):
            t = {}
            for h in r["helper_stats"]:
                for k in ("jobs", "frames", "jpegs", "cpu_s", "ffmpeg_cpu_s", "helper_cpu_s"):
                    t[k] = t.get(k, 0) + h.get(k, 0)
                for k, v in h.get("stages_cpu_s", {}).items():
                    t["stage_" + k] = t.get("stage_" + k, 0) + v
            enc = sorted({j[7] for h in r["helper_stats"] for j in h.get("per_job", []) if len(j) > 7})
            why = sorted({str(h.get("warm", {}).get("jpeg_why")) for h in r["helper_stats"]})
            out.append(f"helpers {r['tag']}: " + ", ".join(f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}" for k, v in t.items())
                       + f"; JPEG by {enc}; {why[:2]}")
        if r.get("beside"):
            out.append(f"beside {r['tag']}: {json.dumps(r['beside'])}; GPU videos {r.get('gpu_videos')}")
    sizes = sorted({v for v, _ in agg})
    if len(sizes) >= 2:
        lo, hi = sizes[0], sizes[-1]
        out.append("")
        marg = {}
        for m in sorted({m for _, m in agg}):
            if (lo, m) in agg and (hi, m) in agg:
                dv = hi - lo
                w = (mean([x["wall_s"] for x in agg[(hi, m)]]) - mean([x["wall_s"] for x in agg[(lo, m)]])) / dv
                c = (mean([x["cpu_s_total"] for x in agg[(hi, m)]]) - mean([x["cpu_s_total"] for x in agg[(lo, m)]])) / dv
                w0 = mean([x["wall_s"] for x in agg[(lo, m)]]) - lo * w
                c0 = mean([x["cpu_s_total"] for x in agg[(lo, m)]]) - lo * c
                marg[m] = (w, c)
                out.append(f"marginal video, frames on {m}: {w:.3f} s wall, {c:.2f} CPU-s; fixed part (start-up): {w0:.1f} s wall, {c0:.1f} CPU-s")
        if "cpu" in marg and "gpu" in marg:
            out.append(f"GPU/CPU marginal: wall {marg['gpu'][0] / marg['cpu'][0]:.2f}x, CPU-s {marg['gpu'][1] / marg['cpu'][1]:.2f}x")
    return "\n".join(out)


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "fixtures":
        return fixtures()
    if cmd == "runs":
        return runs()
    if cmd == "ffcost":
        return ffcost()
    if cmd == "nvjpeg":
        return nvjpeg_check()
    if cmd == "samebytes":
        return samebytes()
    if cmd == "summary":
        with open(sys.argv[2]) as f:
            print(summary_text(json.load(f)))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
