"""The Python/OpenCV baseline of bench/frames.ts's (a): the same workload, the same cores.

    python3 bench/device/opencv_baseline.py WORKLOAD.json PACKAGE_DIR POOL [OUT.json]

WORKLOAD.json is what `bench/frames.ts --workload-json` writes: each video's distinct (index, width, height)
JPEGs. Each video is decoded once, sequentially, with cv2.VideoCapture (FFmpeg backend); every needed
frame is resized with cv2.resize INTER_LANCZOS4 (skipped at the stored size, as sharp is) and encoded with
cv2.imencode at JPEG quality 85 (4:2:0, baseline: OpenCV's defaults), written to a file as (a) does.
POOL worker processes, longest video first, each decoding with max(1, cores // POOL) FFmpeg threads
(the pipeline's default) and cv2.setNumThreads(1) for the resizes.
"""
import json
import multiprocessing as mp
import os
import resource
import shutil
import sys
import tempfile
import time

import cv2


def work(task):
    path, n_frames, jpegs, out_dir, threads = task
    cv2.setNumThreads(1)
    params = [cv2.CAP_PROP_N_THREADS, threads] if hasattr(cv2, "CAP_PROP_N_THREADS") else []
    cap = cv2.VideoCapture(path, cv2.CAP_FFMPEG, params)
    if not cap.isOpened():
        raise RuntimeError(f"cannot open {path}")
    need = {}
    for index, w, h in jpegs:
        need.setdefault(index, []).append((w, h))
    os.makedirs(out_dir, exist_ok=True)
    i = made = 0
    while True:
        if i in need:
            ok, frame = cap.read()
            if not ok:
                break
            fh, fw = frame.shape[:2]
            for w, h in need[i]:
                img = frame if (w, h) == (fw, fh) else cv2.resize(frame, (w, h), interpolation=cv2.INTER_LANCZOS4)
                ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 85])
                if not ok:
                    raise RuntimeError(f"imencode failed on {path} frame {i}")
                with open(os.path.join(out_dir, f"{i:05d}_{w}x{h}.jpg"), "wb") as f:
                    f.write(buf)
                made += 1
        elif not cap.grab():  # grab() decodes the frame too (no colour conversion)
            break
        i += 1
    cap.release()
    return {"path": path, "decoded": i, "expected": n_frames, "jpegs": made}


def cpu_seconds():
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def main():
    workload_file, pkg, pool = sys.argv[1], sys.argv[2], int(sys.argv[3])
    out_json = sys.argv[4] if len(sys.argv) > 4 else None
    wl = json.load(open(workload_file))
    cores = os.cpu_count()
    threads = max(1, cores // pool) if pool > 1 else 0
    out_root = tempfile.mkdtemp(prefix="opencv-baseline-")
    videos = sorted(wl["videos"], key=lambda v: -v["n_frames"])
    tasks = [(os.path.join(pkg, v["path"]), v["n_frames"], v["jpegs"], os.path.join(out_root, str(k)), threads)
             for k, v in enumerate(videos)]
    for t in tasks:  # warm the page cache, as bench/frames.ts does
        open(t[0], "rb").read()
    cpu0, t0 = cpu_seconds(), time.perf_counter()
    with mp.get_context("fork").Pool(pool) as p:
        results = list(p.imap_unordered(work, tasks))
        p.close()
        p.join()
    wall, cpu = time.perf_counter() - t0, cpu_seconds() - cpu0
    shutil.rmtree(out_root, ignore_errors=True)
    short = [r for r in results if r["decoded"] != r["expected"]]
    jpegs = sum(r["jpegs"] for r in results)
    frames = wl["frames_served"]
    summary = {"cv2": cv2.__version__, "pool": pool, "cores": cores, "ffmpeg_threads": threads, "frames_served": frames,
               "jpegs": jpegs, "jpegs_expected": wl["jpegs"], "wall_s": wall, "cpu_s": cpu, "frames_per_s": frames / wall,
               "frames_per_cpu_s": frames / cpu, "cores_busy": cpu / wall, "frame_count_mismatches": short[:20]}
    print(f"(o) OpenCV, pool {pool} ({threads or 'auto'} decode threads): {frames} frames {wall:.2f} s wall "
          f"{frames / wall:.1f} frames/s  {cpu:.2f} CPU s {frames / cpu:.1f} frames/CPU s  {cpu / wall:.2f} cores busy; "
          f"{jpegs}/{wl['jpegs']} JPEGs; {len(short)} videos with another frame count; cv2 {cv2.__version__}")
    if out_json:
        json.dump(summary, open(out_json, "w"), indent=1)


if __name__ == "__main__":
    main()
