"""ms per image of transformers' fast Qwen2-VL image processor against torch's thread count (issue 17).
    python3 bench/device/processor_threads.py OUT.json
Run 2026-12-03 (nvidia-h200, 16 cores; 420 s) as one device call whose command carried this file gzip+base64
(the call sends the session's checkout, not this worktree):
    echo <gzip|base64 of this file>|base64 -d|gunzip>/tmp/p.py; timeout 520 python3 /tmp/p.py $OUT/processor_threads.json
-> bench/device/results/2026-12-03-processor-threads.json (only this docstring changed since).
Single: T threads, 1 process. Shared: 4 processes at once, T threads each (4 servers on 16 cores).
Random-noise RGB PIL images; one image per call and 32 per call (vLLM hands a request's cache misses
to the HF processor in one call). Patch 16, merge 2, temporal 2 (Qwen3-VL)."""
import json, os, sys, time, multiprocessing as mp
import numpy as np, torch, transformers
from PIL import Image
import transformers as tf
C = getattr(tf, 'Qwen2VLImageProcessorFast', None) or tf.Qwen2VLImageProcessor
def proc():
    return C(patch_size=16, merge_size=2, temporal_patch_size=2, size={'shortest_edge': 65536, 'longest_edge': 16777216})
def imgs(w, h, n, seed=0):
    r = np.random.default_rng(seed)
    return [Image.fromarray(r.integers(0, 256, (h, w, 3), dtype=np.uint8)) for _ in range(n)]
def ms(p, ims, batch, secs):
    p(images=ims[:batch], return_tensors='pt')  # warm
    n, t0 = 0, time.perf_counter()
    while True:
        for i in range(0, len(ims) - batch + 1, batch):
            p(images=ims[i:i + batch], return_tensors='pt'); n += batch
        dt = time.perf_counter() - t0
        if dt >= secs: return round(1000 * dt / n, 3)
def cell(T, w, h, batch, secs, bar=None, q=None):
    torch.set_num_threads(T); p = proc(); ims = imgs(w, h, max(batch, 8), seed=T)
    if bar: bar.wait()
    v = ms(p, ims, batch, secs)
    if q: q.put(v)
    return v
def save(out):
    json.dump(out, open(sys.argv[1], 'w'), indent=1)
SIZES = [(398, 224), (1280, 720)]
def main():
    out = {'torch': torch.__version__, 'transformers': transformers.__version__, 'class': C.__name__, 'cpus': os.cpu_count(),
           'affinity': len(os.sched_getaffinity(0)), 'default_threads': torch.get_num_threads(), 'OMP': os.environ.get('OMP_NUM_THREADS'),
           'single': [], 'shared4': []}
    for T in [1, 2, 3, 4, 8, 16]:
        for w, h in SIZES:
            for b in [1, 32]:
                r = {'threads': T, 'w': w, 'h': h, 'batch': b, 'ms_per_image': cell(T, w, h, b, 2.0 if w < 1000 else 3.0)}
                print(json.dumps(r), flush=True); out['single'].append(r); save(out)
    ctx = mp.get_context('spawn')
    for T in [1, 2, 3, 4, 8]:
        for w, h in SIZES:
            for b in [1, 32]:
                bar, q = ctx.Barrier(4), ctx.Queue()
                ps = [ctx.Process(target=cell, args=(T, w, h, b, 2.5, bar, q)) for _ in range(4)]
                [p.start() for p in ps]; v = [q.get() for _ in ps]; [p.join() for p in ps]
                r = {'procs': 4, 'threads': T, 'w': w, 'h': h, 'batch': b, 'ms_per_image_each': v, 'mean': round(sum(v) / 4, 3)}
                print(json.dumps(r), flush=True); out['shared4'].append(r); save(out)
if __name__ == '__main__':
    main()
