"""Token counts of transformers' own Qwen2-VL image processor (patch 16, merge 2, 65,536 / 16,777,216 px),
the rule Qwen3-VL's processor follows, for qwenTokens.ts to be checked against (bench/device/compareQwenTokens.ts).

    python3 bench/device/qwen_tokens_transformers.py SENT_SIZES.json OUT.json

Needs transformers (5.17 on the device machine) and no weights. Writes, compactly:
  sent:  [[w, h, w', h', tokens], ...] for every size the protocol sends (bench/device/sentSizes.ts);
  grid:  w, h over 16..4096 step 7, tokens row-major (h outer), -1 where transformers refuses the size;
  edges: [[w, h, w', h', tokens], ...] near multiples of 32 and near the pixel bounds;
  processor: real runs of the processor on random pixel arrays: image_grid_thw against smart_resize.
tokens = merged patches = (h'/16)(w'/16)/4, without the 2 vision start/end tokens qwenImageTokens adds.
"""
import json
import math
import sys
import time

import numpy as np
import transformers
from transformers import Qwen2VLImageProcessor

try:
    from transformers.models.qwen2_vl.image_processing_qwen2_vl import smart_resize
except ImportError:  # the module layout moves between releases
    from transformers.models.qwen2_vl.image_processing_qwen2_vl_fast import smart_resize

PATCH, MERGE, MIN_PX, MAX_PX = 16, 2, 65_536, 16_777_216
FACTOR = PATCH * MERGE


def make_processor():
    try:
        return Qwen2VLImageProcessor(patch_size=PATCH, merge_size=MERGE, min_pixels=MIN_PX, max_pixels=MAX_PX)
    except TypeError:
        return Qwen2VLImageProcessor(patch_size=PATCH, merge_size=MERGE, size={"shortest_edge": MIN_PX, "longest_edge": MAX_PX})


def resized(w, h):
    """(w', h', tokens) by transformers' smart_resize, or None where it refuses (aspect ratio over 200)."""
    try:
        hh, ww = smart_resize(h, w, factor=FACTOR, min_pixels=MIN_PX, max_pixels=MAX_PX)
    except ValueError:
        return None
    return ww, hh, (hh // PATCH) * (ww // PATCH) // (MERGE * MERGE)


def main():
    sent_file, out_file = sys.argv[1], sys.argv[2]
    t0 = time.time()
    proc = make_processor()
    sent = json.load(open(sent_file))["sizes"]
    out = {
        "transformers": transformers.__version__,
        "processor": type(proc).__name__,
        "settings": {"patch_size": PATCH, "merge_size": MERGE, "min_pixels": MIN_PX, "max_pixels": MAX_PX},
        "tokens_note": "merged patches (h'/16)(w'/16)/4; qwenImageTokens adds 2 vision start/end tokens",
    }
    # get_number_of_image_patches is the processor's own count (it calls smart_resize with its settings):
    # it must agree with the direct call, which also proves the settings took.
    n_patches = getattr(proc, "get_number_of_image_patches", None)
    disagree = []

    def row(w, h):
        r = resized(w, h)
        if r is None:
            return [w, h, -1, -1, -1]
        if n_patches is not None:
            p = n_patches(h, w, {})
            if p != r[2] * MERGE * MERGE:
                disagree.append([w, h, p, r[2]])
        return [w, h, r[0], r[1], r[2]]

    out["sent"] = [row(w, h) for w, h in sent]
    ws = list(range(16, 4097, 7))
    tokens = []
    for h in ws:
        for w in ws:
            r = resized(w, h)
            tokens.append(-1 if r is None else r[2])
    out["grid"] = {"ws": ws, "hs": ws, "order": "h outer, w inner", "tokens": tokens}
    edges = set()
    for k in range(1, 129):  # around multiples of 32 (the rounding) and of 16 (ties: k·32 ± 16)
        for d in (-17, -16, -15, -1, 0, 1, 15, 16, 17):
            v = 32 * k + d
            for other in (16, 31, 32, 33, 224, 225, 256, 257, 720, 1280, 4096, 4097):
                edges.add((v, other))
                edges.add((other, v))
    for target in (MIN_PX, MAX_PX):  # near the pixel bounds, several aspect ratios
        for num, den in ((1, 1), (16, 9), (4, 3), (21, 9), (9, 16), (3, 4), (2, 1), (1, 2), (5, 1)):
            base_h = math.sqrt(target * den / num)
            for dh in range(-3, 4):
                h = max(1, int(base_h) + dh)
                for dw in range(-3, 4):
                    w = max(1, int(h * num / den) + dw)
                    edges.add((w, h))
    for w in range(1, 40):  # tiny images and extreme ratios (transformers refuses a ratio over 200)
        for h in (1, 2, 3, 10, 16, 100, 199 * w, 200 * w, 201 * w):
            edges.add((w, h))
            edges.add((h, w))
    out["edges"] = [row(w, h) for w, h in sorted(edges)]
    out["get_number_of_image_patches_disagrees"] = disagree[:100]
    out["get_number_of_image_patches_checked"] = n_patches is not None
    # The processor itself on real pixels: image_grid_thw must be (1, h'/16, w'/16).
    rng = np.random.default_rng(5)
    checks = []
    picks = [(398, 224), (224, 224), (299, 168), (1280, 720), (720, 1280), (853, 480), (16, 16), (100, 3000),
             (4097, 4097), (4200, 4100), (33, 4000), (255, 255), (257, 255)]
    picks += [tuple(sent[int(i)]) for i in rng.integers(0, len(sent), 24)]
    for w, h in picks:
        img = rng.integers(0, 256, size=(h, w, 3), dtype=np.uint8)
        expect = resized(w, h)
        try:
            res = proc(images=[img], return_tensors="np")
            thw = [int(x) for x in np.asarray(res["image_grid_thw"])[0]]
            checks.append({"w": w, "h": h, "grid_thw": thw, "smart_resize": expect,
                           "agree": expect is not None and thw == [1, expect[1] // PATCH, expect[0] // PATCH]})
        except Exception as e:  # noqa: BLE001 - recorded, not hidden
            checks.append({"w": w, "h": h, "error": f"{type(e).__name__}: {e}"[:300], "smart_resize": expect})
    out["processor_runs"] = checks
    out["seconds"] = round(time.time() - t0, 1)
    json.dump(out, open(out_file, "w"), separators=(",", ":"))
    bad = [c for c in checks if not c.get("agree")]
    print(f"qwen tokens: {len(out['sent'])} sent sizes, {len(tokens)} grid sizes, {len(out['edges'])} edge sizes; "
          f"processor runs {len(checks)} ({len(bad)} not agreeing); get_number_of_image_patches disagrees {len(disagree)}; "
          f"transformers {transformers.__version__}, {out['seconds']} s")


if __name__ == "__main__":
    main()
