#!/usr/bin/env python3
"""FP's frames on the GPU (issue 34): NVDEC decode, GPU resize, JPEG (libjpeg via pillow).

The decode (issue 45): NVDEC in this process through the driver's libnvcuvid (fp_nvdec.py: ffmpeg only demuxes, the
frames stay on the GPU until resized), or ffmpeg's NVDEC (-hwaccel cuda, the frames through a pipe) for a video that
cannot be decoded there as ffmpeg would (FP_GPU_DECODE=ffmpeg: always). Measured on an H100 (bench/gpuSweep, whole
sweeps, nvdec_check.py, parts.py): the NV12 frames are ffmpeg's, frame for frame (14 videos, 6,100 frames), the
JPEGs byte for byte (12,464 of 12,464); the GPU time taken from a model-shaped matmul beside them 0.260 against
0.429 GPU-ms a megapixel-frame, and the whole sweep's CPU a marginal video 1.55 against 2.33 CPU-s (one machine,
one run each; 1.29 over two runs).

Runs in vLLM's Python environment (CUDA torch and torchvision are vLLM's own dependencies).
  python3 fp_gpu_frames.py --probe [--ffmpeg PATH]       one JSON line: what this host can do
  python3 fp_gpu_frames.py --job < job.json              one JSON line: what was made
  python3 fp_gpu_frames.py --serve [--jobs N]            warms, says {"ready": true, ...}; then a job a line in,
                                                         a result a line out (with the job's "id"); --jobs N: up to
                                                         N jobs at once on N threads of this one process (one
                                                         import of torch, one CUDA context; issue 45)

A job: {"ffmpeg": path, "video": path, "width": W, "height": H, "quality": 85, "encoder": "spec"|"pillow"|"nvjpeg",
        "frames": [{"index": i, "outputs": [{"width": w, "height": h, "path": p}, ...]}, ...]}
Each output is written to p + ".part" and renamed to p, so a crash leaves no half JPEG under its name; p's folder
must be a private folder of ours (the node side makes one for each job, mode 0700) and p + ".part" must not exist
(O_CREAT|O_EXCL|O_NOFOLLOW): nothing planted there is followed or overwritten (issue 42).

What stays as the CPU path makes it (SPEC section 2.3): the frames are the stored frames, one per index
(ffmpeg's select on the decoded frame number, -fps_mode passthrough); sizes come from the caller (planFrames);
the downscale is Lanczos-3 (the weights libvips' reduce uses: support 3 x the scale, centres at
(x + 0.5) * scale - 0.5); JPEG quality 85 on the IJG scale, 4:2:0, baseline. Colour: BT.601 limited range,
chroma repeated 2 x 2, as ffmpeg's own yuv420p -> rgb24 conversion the CPU path asks for.

The JPEGs ("spec", what the node side asks for): nvJPEG on the GPU at 4:2:0 (through ctypes: torchvision's
encode_jpeg writes 4:4:4), only where this helper's warm-up found its files keep every SPEC rule on the bytes
(jpeg_spec_problems: baseline, 8-bit, 4:2:0, IJG quality-85 tables; and the pixels those of the image given);
else libjpeg through pillow. Opt-in: FP_GPU_JPEG=auto. Measured (issue 45, bench/gpuSweep parts.py, H200, 12 jobs of a
whole sweep): its warm-up check passes (44.9 dB from pillow's own 4:2:0 of the test image) and the helper's JPEG CPU
falls (10.4 -> 4.1 s), but beside a model-shaped matmul it takes 2.4x the GPU time (0.892 against 0.370 ms a
megapixel-frame) and its jobs 3x the wall (one encode at a time): pillow stays the default.
"""
import json
import math
import os
import subprocess
import sys
import threading
import time

QUALITY = 85
# Frames a GPU step (FP_GPU_BATCH for the bench): one upload, one colour conversion, one resize per size, one copy down.
BATCH = int(os.environ.get("FP_GPU_BATCH", "16"))
# The colour conversion: "broadcast" (GpuFrames.rgb's half-size chroma, the default) or "reference" (rgb_reference,
# as before). bench/gpuSweep parts.py on an H200 (12 real jobs of a whole sweep, 12,464 JPEGs): byte for byte the same,
# GPU time taken beside the matmul 0.370 against 0.376 ms a megapixel-frame (of which ffmpeg's NVDEC decode alone 0.194).
RGB_WAY = os.environ.get("FP_GPU_RGB", "broadcast")
# A helper serves many videos of a few shapes: the resize weights and the pinned upload buffer are made once per
# shape, not once per video (bench/gpuFrames: remade per job they cost host CPU every video).
_WEIGHTS = {}
# Per thread (--jobs N runs jobs on N threads): its pinned upload buffers and its CUDA stream (None: the default
# stream, one job at a time as before). The kernels and their inputs are the same either way: so are the bytes.
_LOCAL = threading.local()
# nvJPEG's encoder states are one an image in flight, not one a thread: one encode at a time.
_NVJPEG_LOCK = threading.Lock()
_WEIGHTS_LOCK = threading.Lock()
F_SETPIPE_SZ = 1031  # fcntl.h: a 1 MiB pipe (Linux's default pipe-max-size) instead of 64 KiB: 16x fewer reads


def blocking_sync():
    """Make CUDA's waits sleep instead of spin (CU_CTX_SCHED_BLOCKING_SYNC on the primary context, set before torch
    creates it): a spinning wait is host CPU, the resource this path exists to spare. Best effort."""
    try:
        import ctypes

        cu = ctypes.CDLL("libcuda.so.1")
        if cu.cuInit(0) != 0:
            return False
        dev = ctypes.c_int()
        if cu.cuDeviceGet(ctypes.byref(dev), 0) != 0:
            return False
        set_flags = getattr(cu, "cuDevicePrimaryCtxSetFlags_v2", None) or cu.cuDevicePrimaryCtxSetFlags
        return set_flags(dev, 0x4) == 0
    except (OSError, AttributeError):
        return False


def lanczos3_weights(n_in, n_out):
    """(n_out, n_in) float64 rows of Lanczos-3 weights, each row summing to 1 (antialiased downscale)."""
    import numpy as np

    scale = n_in / n_out
    support = 3.0 * max(scale, 1.0)
    w = np.zeros((n_out, n_in), dtype=np.float64)
    for o in range(n_out):
        centre = (o + 0.5) * scale - 0.5
        lo = max(0, int(math.floor(centre - support)))
        hi = min(n_in - 1, int(math.ceil(centre + support)))
        xs = np.arange(lo, hi + 1, dtype=np.float64)
        t = (xs - centre) / max(scale, 1.0)
        k = np.sinc(t) * np.sinc(t / 3.0)
        k[np.abs(t) >= 3.0] = 0.0
        w[o, lo : hi + 1] = k / k.sum()
    return w


# ITU-T T.81 Annex K tables (natural order) and the zigzag order DQT stores them in (jpegSpec.ts, the node side's check).
ANNEX_K_LUMA = [16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29,
                51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120,
                101, 72, 92, 95, 98, 112, 100, 103, 99]
ANNEX_K_CHROMA = [17, 18, 24, 47] + [99] * 4 + [18, 21, 26, 66] + [99] * 4 + [24, 26, 56] + [99] * 5 + [47, 66] + [99] * 38
ZIGZAG = [0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
          35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55,
          62, 63]


def ijg_table(base, quality):
    """libjpeg's jpeg_quality_scaling + jpeg_add_quant_table (force_baseline)."""
    scale = 5000 // quality if quality < 50 else 200 - quality * 2
    return [min(255, max(1, (b * scale + 50) // 100)) for b in base]


def jpeg_spec_problems(data, width, height, quality=QUALITY):
    """What breaks SPEC section 2.3 in these JPEG bytes (empty: nothing): one SOF, baseline (SOF0), 8-bit, the size,
    4:2:0 (Y 2x2, Cb and Cr 1x1), IJG tables at the quality. The node side's checkSpecJpeg, in Python."""
    if data[:2] != b"\xff\xd8":
        return ["not a JPEG (no SOI)"]
    sof, tables, frame, p = [], {}, None, 2
    while p + 4 <= len(data):
        if data[p] != 0xFF:
            return [f"bad marker at {p}"]
        code = data[p + 1]
        if code in (0xD9, 0xDA):
            break
        n = int.from_bytes(data[p + 2 : p + 4], "big")
        seg = data[p + 4 : p + 2 + n]
        if 0xC0 <= code <= 0xCF and code not in (0xC4, 0xC8, 0xCC):
            sof.append(code)
            if frame is None and len(seg) >= 6:
                comps = [(seg[6 + 3 * c] , seg[7 + 3 * c] >> 4, seg[7 + 3 * c] & 15, seg[8 + 3 * c]) for c in range(seg[5])]
                frame = (seg[0], int.from_bytes(seg[1:3], "big"), int.from_bytes(seg[3:5], "big"), comps)
        if code == 0xDB:
            q = 0
            while q < len(seg):
                prec, tid = seg[q] >> 4, seg[q] & 15
                natural = [0] * 64
                for k in range(64):
                    natural[ZIGZAG[k]] = int.from_bytes(seg[q + 1 + 2 * k : q + 3 + 2 * k], "big") if prec else seg[q + 1 + k]
                tables[tid] = natural
                q += 1 + 64 * (2 if prec else 1)
        p += 2 + n
    problems = []
    if sof != [0xC0]:
        problems.append("not baseline: SOF " + (",".join(f"{c:x}" for c in sof) or "none"))
    if frame is None:
        return problems + ["no frame header"]
    precision, h, w, comps = frame
    if (w, h) != (width, height):
        problems.append(f"size {w}x{h}, planned {width}x{height}")
    if precision != 8:
        problems.append(f"{precision}-bit samples")
    if len(comps) != 3 or [(c[1], c[2]) for c in comps] != [(2, 2), (1, 1), (1, 1)]:
        problems.append("sampling " + ",".join(f"{c[1]}x{c[2]}" for c in comps) + ", not 4:2:0 (2x2,1x1,1x1)")
    want = [ijg_table(ANNEX_K_LUMA, quality), ijg_table(ANNEX_K_CHROMA, quality), ijg_table(ANNEX_K_CHROMA, quality)]
    for name, c, t in zip(("luma", "Cb", "Cr"), comps, want):
        if tables.get(c[3]) != t:
            problems.append(f"{name} table is not IJG's at quality {quality}")
    return problems


def find_nvjpeg():
    """libnvjpeg's path: the one this process has loaded (torchvision's image extension links it), else one beside
    torch or torchvision in the Python paths, else the linker's."""
    def loaded():
        try:
            with open("/proc/self/maps") as f:
                for line in f:
                    path = line.split()[-1] if len(line.split()) >= 6 else ""
                    if os.path.basename(path).startswith("libnvjpeg"):
                        return path
        except OSError:
            pass
        return None

    found = loaded()
    if found:
        return found
    import glob

    for root in [p for p in sys.path if p and os.path.isdir(p)]:
        for pattern in ("torchvision.libs/libnvjpeg*.so*", "nvidia/nvjpeg/lib/libnvjpeg.so*", "nvidia/*/lib/libnvjpeg.so*"):
            hits = sorted(glob.glob(os.path.join(root, pattern)))
            if hits:
                return hits[0]
    try:
        import torchvision.io  # noqa: F401  (loads its image extension, which links libnvjpeg)
    except Exception:
        pass
    found = loaded()
    if found:
        return found
    import ctypes.util

    return ctypes.util.find_library("nvjpeg")


class NvJpeg420:
    """nvJPEG's encoder through ctypes, at 4:2:0, the IJG quality, standard Huffman tables, baseline: planar RGB
    uint8 images on the GPU in, JPEG bytes out. One encoder state an image in flight: a batch's images are all
    encoded, then each one's bytes fetched (the first fetch waits for the stream)."""

    CSS_420, INPUT_RGB, BASELINE = 2, 3, 0xC0

    def __init__(self, quality=QUALITY, path=None):
        import ctypes

        self.ct = ctypes
        path = path or find_nvjpeg()
        if not path:
            raise OSError("no libnvjpeg found")
        self.path = path
        lib = ctypes.CDLL(path)
        vp, ci, sz = ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t

        class Image(ctypes.Structure):
            _fields_ = [("channel", vp * 4), ("pitch", sz * 4)]

        self.Image = Image
        sigs = {
            "nvjpegCreateSimple": [ctypes.POINTER(vp)],
            "nvjpegEncoderParamsCreate": [vp, ctypes.POINTER(vp), vp],
            "nvjpegEncoderParamsSetQuality": [vp, ci, vp],
            "nvjpegEncoderParamsSetSamplingFactors": [vp, ci, vp],
            "nvjpegEncoderParamsSetOptimizedHuffman": [vp, ci, vp],
            "nvjpegEncoderStateCreate": [vp, ctypes.POINTER(vp), vp],
            "nvjpegEncodeImage": [vp, vp, vp, ctypes.POINTER(Image), ci, ci, ci, vp],
            "nvjpegEncodeRetrieveBitstream": [vp, vp, ctypes.c_char_p, ctypes.POINTER(sz), vp],
        }
        for name, args in sigs.items():
            fn = getattr(lib, name)
            fn.argtypes, fn.restype = args, ci
        self.lib = lib
        self.handle, self.params, self.states = vp(), vp(), []
        self._ok(lib.nvjpegCreateSimple(ctypes.byref(self.handle)), "create")
        self._ok(lib.nvjpegEncoderParamsCreate(self.handle, ctypes.byref(self.params), None), "params")
        self._ok(lib.nvjpegEncoderParamsSetQuality(self.params, quality, None), "quality")
        self._ok(lib.nvjpegEncoderParamsSetSamplingFactors(self.params, self.CSS_420, None), "4:2:0")
        self._ok(lib.nvjpegEncoderParamsSetOptimizedHuffman(self.params, 0, None), "standard Huffman tables")
        set_encoding = getattr(lib, "nvjpegEncoderParamsSetEncoding", None)
        if set_encoding is not None:  # baseline is nvJPEG's default; said where the library can say it
            set_encoding.argtypes, set_encoding.restype = [vp, ci, vp], ci
            self._ok(set_encoding(self.params, self.BASELINE, None), "baseline")

    @staticmethod
    def _ok(status, what):
        if status != 0:
            raise RuntimeError(f"nvJPEG {what}: status {status}")

    def _state(self, k):
        while len(self.states) <= k:
            s = self.ct.c_void_p()
            self._ok(self.lib.nvjpegEncoderStateCreate(self.handle, self.ct.byref(s), None), "state")
            self.states.append(s)
        return self.states[k]

    def encode(self, batches):
        """uint8 (m, 3, h, w) CUDA batches (the default stream's work) -> JPEG bytes of each image, in order."""
        ct, lib = self.ct, self.lib
        held = [b.contiguous() for b in batches]  # alive until every image's bytes are fetched
        img, k = self.Image(), 0
        for b in held:
            m, _, h, w = b.shape
            plane = h * w
            for i in range(m):
                base = b.data_ptr() + i * 3 * plane
                for c in range(3):
                    img.channel[c], img.pitch[c] = base + c * plane, w
                self._ok(lib.nvjpegEncodeImage(self.handle, self._state(k), self.params, ct.byref(img), self.INPUT_RGB, w, h, None), "encode")
                k += 1
        out, n = [], ct.c_size_t()
        for j in range(k):
            self._ok(lib.nvjpegEncodeRetrieveBitstream(self.handle, self.states[j], None, ct.byref(n), None), "length")
            buf = ct.create_string_buffer(n.value)
            self._ok(lib.nvjpegEncodeRetrieveBitstream(self.handle, self.states[j], buf, ct.byref(n), None), "bytes")
            out.append(buf.raw[: n.value])
        return out


# The helper's nvJPEG encoder once warm() has checked its files (None: pillow), and why not where it is None.
NVJPEG = {"encoder": None, "why": "not checked"}


NVJPEG_MIN_PSNR = 40.0


def checked_nvjpeg(torch, quality=QUALITY):
    """An NvJpeg420 whose JPEG of a test image keeps every SPEC rule (jpeg_spec_problems) and whose pixels are those
    of pillow's 4:2:0 JPEG of the same image (PSNR >= NVJPEG_MIN_PSNR, both decoded by pillow), else (None, why)."""
    if os.environ.get("FP_GPU_JPEG", "pillow") != "auto":  # opt-in until a device run has measured it (issue 45)
        return None, "pillow (FP_GPU_JPEG=auto tries nvJPEG)"
    try:
        import io

        import numpy as np
        from PIL import Image

        enc = NvJpeg420(quality)
        h, w = 72, 128
        yy, xx = np.mgrid[0:h, 0:w]
        rgb = np.stack([(xx * 2) % 256, (yy * 3) % 256, ((xx + yy) * 5) % 256]).astype(np.uint8)
        data = enc.encode([torch.from_numpy(rgb).unsqueeze(0).cuda()])[0]
        problems = jpeg_spec_problems(data, w, h, quality)
        if problems:
            return None, f"nvJPEG's file breaks the SPEC: {'; '.join(problems)}"
        # Against pillow's own 4:2:0 JPEG of the image, not the image: on this wrap-around pattern 4:2:0 itself is
        # ~27 dB from the image (blue 22.5 dB), pillow's too (issue 45, bench/gpuSweep nvjpeg: nvJPEG 44.9 dB from
        # pillow's here, 50.8 on a fixture frame, 54.1 on a gradient), so the old image check refused a good nvJPEG.
        back = np.asarray(Image.open(io.BytesIO(data)).convert("RGB"), dtype=np.float64)
        buf = io.BytesIO()
        Image.fromarray(rgb.transpose(1, 2, 0)).save(buf, format="JPEG", quality=quality, subsampling=2, optimize=False, progressive=False)
        ref = np.asarray(Image.open(buf).convert("RGB"), dtype=np.float64)
        mse = float(((back - ref) ** 2).mean())
        psnr = 99.0 if mse == 0 else 10 * math.log10(255.0**2 / mse)
        if psnr < NVJPEG_MIN_PSNR:
            return None, f"nvJPEG's pixels are not pillow's 4:2:0 of the test image (PSNR {psnr:.1f} dB < {NVJPEG_MIN_PSNR})"
        return enc, f"nvJPEG 4:2:0 ({os.path.basename(enc.path)}): SPEC rules kept, PSNR {psnr:.1f} dB against pillow's on the test image"
    except Exception as e:  # no nvJPEG, or one that fails: pillow
        return None, f"no nvJPEG: {type(e).__name__}: {e}"


class GpuFrames:
    """NV12 frames (uint8, on the GPU) -> RGB -> resized -> JPEG bytes."""

    def __init__(self, width, height, encoder="pillow", quality=QUALITY, device="cuda"):
        import torch

        self.torch = torch
        # FP32 resize sums, not TF32 (torch's default, said here so nothing upstream changes it); FP_GPU_TF32=1 is
        # the bench's variant (run 6: its GPU time and its pixels against FP32's).
        torch.backends.cuda.matmul.allow_tf32 = os.environ.get("FP_GPU_TF32") == "1"
        self.width, self.height = width, height
        self.encoder, self.quality, self.device = encoder, quality, device

    def _w(self, n_in, n_out):
        key = (n_in, n_out, self.device)
        if key not in _WEIGHTS:
            with _WEIGHTS_LOCK:
                if key not in _WEIGHTS:
                    w = self.torch.from_numpy(lanczos3_weights(n_in, n_out)).to(self.device, self.torch.float32)
                    # Shared by every job thread, each on its own stream: the copy is done before any other reads it.
                    self.torch.cuda.current_stream().synchronize()
                    _WEIGHTS[key] = w
        return _WEIGHTS[key]

    def rgb(self, nv12):
        """(B, H*3/2, W) uint8 NV12 on the GPU -> (B, 3, H, W) float32 RGB 0..255 (not rounded).

        The chroma terms are made at half size and added to the luma through 2x2 broadcast views, straight into the
        output: the same float32 operations on the same values in the same order as rgb_reference (which makes
        full-size copies of U and V first), so the same bits, with about half the GPU memory traffic and half the
        kernels (issue 45). FP_GPU_RGB=reference: the old way (RGB_WAY: the device's byte check)."""
        torch = self.torch
        h, w = self.height, self.width
        if RGB_WAY == "reference" or h % 2 or w % 2:
            return self.rgb_reference(nv12)
        b_ = nv12.shape[0]
        uv = nv12[:, h : h + h // 2].reshape(b_, h // 2, w // 2, 2).float()
        u = (uv[..., 0] - 128.0).view(b_, h // 2, 1, w // 2, 1)
        v = (uv[..., 1] - 128.0).view(b_, h // 2, 1, w // 2, 1)
        c = nv12[:, :h].float().sub_(16.0).mul_(255.0 / 219.0).view(b_, h // 2, 2, w // 2, 2)
        out = torch.empty((b_, 3, h, w), dtype=torch.float32, device=nv12.device)
        r, g, b = (out[:, k].view(b_, h // 2, 2, w // 2, 2) for k in range(3))
        torch.add(c, (255.0 / 224.0) * 1.402 * v, out=r)
        torch.sub(c, (255.0 / 224.0) * (1.772 * 0.114 / 0.587) * u, out=g)
        g.sub_((255.0 / 224.0) * (1.402 * 0.299 / 0.587) * v)
        torch.add(c, (255.0 / 224.0) * 1.772 * u, out=b)
        return out.clamp_(0.0, 255.0)

    def rgb_reference(self, nv12):
        """rgb() as it was made before issue 45's second device session: U and V repeated to full size first."""
        torch = self.torch
        h, w = self.height, self.width
        b_ = nv12.shape[0]
        y = nv12[:, :h].float()
        uv = nv12[:, h : h + h // 2].reshape(b_, h // 2, w // 2, 2).float()
        u = uv[..., 0].repeat_interleave(2, 1).repeat_interleave(2, 2)[:, :h, :w] - 128.0
        v = uv[..., 1].repeat_interleave(2, 1).repeat_interleave(2, 2)[:, :h, :w] - 128.0
        c = (y - 16.0) * (255.0 / 219.0)
        r = c + (255.0 / 224.0) * 1.402 * v
        g = c - (255.0 / 224.0) * (1.772 * 0.114 / 0.587) * u - (255.0 / 224.0) * (1.402 * 0.299 / 0.587) * v
        b = c + (255.0 / 224.0) * 1.772 * u
        return torch.stack((r, g, b), dim=1).clamp_(0.0, 255.0)

    def resized(self, rgb, width, height):
        """(..., 3, H, W) float -> (..., 3, height, width) uint8, Lanczos-3 (never up)."""
        torch = self.torch
        h, w = rgb.shape[-2:]
        if width > w or height > h:
            raise ValueError(f"frames are never upscaled: {w}x{h} -> {width}x{height}")
        out = rgb
        if (width, height) != (w, h):
            out = torch.matmul(self._w(h, height), torch.matmul(rgb, self._w(w, width).t()))
        if out is rgb:  # `rgb` serves every size: not rounded in place
            return out.round().clamp_(0.0, 255.0).to(torch.uint8)
        return out.round_().clamp_(0.0, 255.0).to(torch.uint8)

    def encode(self, batches):
        """uint8 (m, 3, h, w) GPU batches -> JPEG bytes of each image, in order.

        "pillow" (the default): one copy of each batch to the host, then libjpeg(-turbo) through pillow: IJG tables at
        the quality, 4:2:0 (subsampling=2), baseline, standard Huffman tables: the SPEC's JPEG, as sharp writes it.
        "spec" (the node side's): NvJpeg420 where warm() checked its files (NVJPEG), else "pillow".
        "nvjpeg": torchvision's encode_jpeg on the GPU. Measured (bench/gpuFrames, run 1): torchvision 0.26 writes
        4:4:4 (every component 1x1 in SOF0) with no way to ask for 4:2:0, so it breaks the SPEC: kept for benches only.
        """
        if self.encoder == "spec" and NVJPEG["encoder"] is not None and self.quality == QUALITY:  # checked at QUALITY
            try:
                self.torch.cuda.current_stream().synchronize()  # the resize is done before nvJPEG's stream reads it
                with _NVJPEG_LOCK:
                    return NVJPEG["encoder"].encode(batches)
            except Exception as e:  # a failing nvJPEG: pillow from here on, and the reason in the stats
                NVJPEG["encoder"], NVJPEG["why"] = None, f"nvJPEG failed in a job: {type(e).__name__}: {e}"
        if self.encoder == "nvjpeg":
            from torchvision.io import encode_jpeg

            images = [t for b in batches for t in b.unbind(0)]
            return [bytes(t.cpu().numpy()) for t in encode_jpeg(images, quality=self.quality)]
        import io

        from PIL import Image

        out = []
        for b in batches:
            for arr in b.permute(0, 2, 3, 1).contiguous().cpu().numpy():
                buf = io.BytesIO()
                Image.fromarray(arr).save(buf, format="JPEG", quality=self.quality, subsampling=2, optimize=False, progressive=False)
                out.append(buf.getvalue())
        return out


def select_expression(indices):
    """ffmpeg select: between() for runs, eq() for lone frames, summed as a balanced tree (ffmpeg's parser
    refuses a flat sum of ~128 terms); quoted in the filtergraph, so commas need no escaping."""
    idx = sorted(set(indices))
    terms, start = [], idx[0]
    for prev, cur in zip(idx, idx[1:] + [None]):
        if cur != prev + 1 if cur is not None else True:
            terms.append(f"eq(n,{start})" if start == prev else f"between(n,{start},{prev})")
            start = cur

    def tree(ts):
        if len(ts) <= 16:
            return "+".join(ts)
        half = len(ts) // 2
        return f"({tree(ts[:half])})+({tree(ts[half:])})"

    return tree(terms)


def ffmpeg_threads():
    """ffmpeg's decoder threads for an NVDEC decode (FP_GPU_FFMPEG_THREADS; 0 = ffmpeg's own choice, cores + 1
    frame threads that mostly wait on the one NVDEC session). bench/gpuFrames run 3 (H100, 8 decodes at once, this
    command): 1 thread cost 0.93 CPU-s a 720p video, 2: 1.00, 4: 1.02, ffmpeg's choice 1.08, each in the same wall."""
    return int(os.environ.get("FP_GPU_FFMPEG_THREADS", "1"))


def decoder_args():
    """NVDEC through ffmpeg's h264 decoder and its nvdec hwaccel (the default), or FP_GPU_DECODER=cuvid: the
    h264_cuvid decoder (NVIDIA's own parser; the bench's A/B: same frames, another host-side path)."""
    if os.environ.get("FP_GPU_DECODER") == "cuvid":
        return ["-hwaccel", "cuda", "-hwaccel_output_format", "cuda", "-c:v", "h264_cuvid"]
    return ["-hwaccel", "cuda", "-hwaccel_output_format", "cuda"]


def nvdec_command(ffmpeg, video, indices, threads=None):
    """ffmpeg: NVDEC decode, select the stored frames asked for, download them as NV12 raw on stdout."""
    vf = f"select='{select_expression(indices)}',hwdownload,format=nv12"
    threads = ffmpeg_threads() if threads is None else threads
    # -xerror and -noautorotate as the CPU path (ffmpegDecode.ts): a damaged frame fails; frames exactly as stored.
    # -avioflags direct: one write a frame on the pipe, not one a 32 KiB buffer (42 writes and as many wake-ups of
    # the reader for a 720p NV12 frame; the CPU path's ffmpeg has had it since its profile).
    return [ffmpeg, "-hide_banner", "-loglevel", "error", "-nostdin", "-xerror", "-noautorotate", "-filter_threads", "1",
            "-threads", str(threads), *decoder_args(), "-i", video, "-an", "-vf", vf,
            "-fps_mode", "passthrough", "-avioflags", "direct", "-f", "rawvideo", "-pix_fmt", "nv12", "pipe:1"]


def read_into(stream, view):
    """Fill `view` (a writable byte memoryview) from a raw stream: the bytes land in place, with no copy between."""
    got = 0
    while got < len(view):
        n = stream.readinto(view[got:])
        if not n:
            break
        got += n
    return got


def pinned_buffer(torch, frame_bytes):
    """This thread's pinned upload buffer for frames of `frame_bytes` (made once a thread and size)."""
    pinned = _LOCAL.__dict__.setdefault("pinned", {})
    if frame_bytes not in pinned:
        pinned[frame_bytes] = torch.empty((BATCH, frame_bytes), dtype=torch.uint8).pin_memory()
    return pinned[frame_bytes]


def job_stream(torch):
    """The CUDA stream this thread's jobs run on: its own on a --jobs N thread (so one job's copy down waits for its
    own work only), else the current one (the default stream)."""
    stream = getattr(_LOCAL, "stream", None)
    return torch.cuda.stream(stream) if stream is not None else _NoContext()


class _NoContext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def private_folder(folder):
    """The output folder, opened without following a link (O_DIRECTORY|O_NOFOLLOW) and checked: a private folder of
    ours (our uid, no access for group or others), as the node side makes for each job. Its descriptor."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    st = os.fstat(fd)
    if st.st_uid != os.geteuid() or st.st_mode & 0o077:
        os.close(fd)
        raise PermissionError(f"{folder}: not a private folder of ours (mode {st.st_mode & 0o777:o}, uid {st.st_uid}): nothing is written there")
    return fd


def write_output(path, data, folders=None):
    """One JPEG to `path` (issue 42): `path.part` made new in the checked folder (O_CREAT|O_EXCL|O_NOFOLLOW: a link
    or any file planted under that name is an error, never followed or cut), then renamed to `path`, both through
    the folder's descriptor. `folders` caches the folders' descriptors (the caller closes them)."""
    folder, name = os.path.split(path)
    own = folders is None
    folders = {} if own else folders
    if folder not in folders:
        folders[folder] = private_folder(folder)
    dfd = folders[folder]
    try:
        part = name + ".part"
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=dfd)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.rename(part, name, src_dir_fd=dfd, dst_dir_fd=dfd)
    finally:
        if own:
            os.close(dfd)


def run_job(job):
    folders = {}  # each output folder opened once a job (write_output), closed however the job ends
    try:
        return _run_job(job, folders)
    finally:
        for fd in folders.values():
            os.close(fd)


def _run_job(job, folders):
    import torch

    with job_stream(torch):
        return _run_job_on_stream(job, folders, torch)


def _run_job_on_stream(job, folders, torch):
    t0 = time.perf_counter()
    # A job's CPU: its thread's on a --jobs N thread (the process's would count the other jobs too), else the process's.
    clock = time.thread_time if getattr(_LOCAL, "stream", None) is not None else time.process_time
    cpu0 = clock()
    frames = sorted(job["frames"], key=lambda f: f["index"])
    maker = GpuFrames(job["width"], job["height"], job.get("encoder", "pillow"), job.get("quality", QUALITY))
    stages = {"read": 0.0, "gpu": 0.0, "encode": 0.0, "write": 0.0}
    result, why_not = None, None
    if decode_way() == "nvcuvid" and job.get("stored_frames"):
        try:
            result = _decode_nvcuvid(job, frames, maker, folders, torch, stages)
        except fp_nvdec().NvdecUnfit as e:  # ffmpeg decodes it: it writes every output again
            why_not = str(e)
            stages = {"read": 0.0, "gpu": 0.0, "encode": 0.0, "write": 0.0}
    if result is None:
        result = _decode_ffmpeg(job, frames, maker, folders, torch, stages)
    if not result.get("ok"):
        return result
    jpeg = "nvjpeg420" if maker.encoder == "spec" and NVJPEG["encoder"] is not None else maker.encoder
    result.update({"seconds": time.perf_counter() - t0, "cpu_s": clock() - cpu0, "stages_cpu_s": stages, "jpeg": jpeg})
    if why_not is not None:
        result["decode_fallback"] = why_not
    return result


def decode_way():
    """Who decodes (FP_GPU_DECODE): "nvcuvid" (the default: NVDEC in this process, fp_nvdec.py; a video it cannot
    decode as ffmpeg would goes to ffmpeg) or "ffmpeg" (its NVDEC for every video, frames through a pipe)."""
    return os.environ.get("FP_GPU_DECODE", "nvcuvid")


def fp_nvdec():
    import fp_nvdec as mod  # beside this file (the script's folder is first on sys.path)

    return mod


def make_step(maker, nv12, chunk, folders, stages, torch):
    """One step: `nv12` (n, H*3/2, W) uint8 on the GPU, the frames of `chunk` in order -> their JPEGs written.
    Returns the outputs made."""
    t = time.thread_time()
    n = nv12.shape[0]
    rgb = maker.rgb(nv12)
    by_size = {}
    for k, f in enumerate(chunk):
        for o in f["outputs"]:
            by_size.setdefault((o["width"], o["height"]), []).append((k, o))
    batches, targets = [], []
    for (ow, oh), items in by_size.items():
        ks = [k for k, _ in items]
        # Every frame of the step at this size (the usual case): the batch itself, no gathered copy of it.
        picked = rgb if ks == list(range(n)) else rgb.index_select(0, torch.tensor(ks, device="cuda"))
        batches.append(maker.resized(picked, ow, oh))
        targets.extend(o for _, o in items)
    stages["gpu"] += time.thread_time() - t
    t = time.thread_time()
    encoded = maker.encode(batches)
    stages["encode"] += time.thread_time() - t
    t = time.thread_time()
    for o, data in zip(targets, encoded):
        write_output(o["path"], data, folders)
    stages["write"] += time.thread_time() - t
    return len(targets)


def _decode_nvcuvid(job, frames, maker, folders, torch, stages):
    """NVDEC in this process (fp_nvdec.py): the frames never leave the GPU before their resize."""
    nvdec = fp_nvdec()
    made = [0, 0]  # outputs, frames

    def on_batch(nv12):
        n = nv12.shape[0]
        made[0] += make_step(maker, nv12, frames[made[1] : made[1] + n], folders, stages, torch)
        made[1] += n

    t = time.thread_time()
    dec = nvdec.NvdecJob(torch, job["width"], job["height"], job["stored_frames"], [f["index"] for f in frames], BATCH, on_batch)
    delivered, demux_cpu = dec.run(job["ffmpeg"], job["video"])
    stages["read"] += max(0.0, time.thread_time() - t - stages["gpu"] - stages["encode"] - stages["write"])
    if delivered != len(frames) or made[1] != len(frames):
        raise nvdec.NvdecUnfit(f"{made[1]} of {len(frames)} frames made")
    return {"ok": True, "frames": delivered, "jpegs": made[0], "ffmpeg_cpu_s": demux_cpu, "decoder": "nvcuvid"}


def _decode_ffmpeg(job, frames, maker, folders, torch, stages):
    import fcntl

    w, h = job["width"], job["height"]
    proc = subprocess.Popen(nvdec_command(job["ffmpeg"], job["video"], [f["index"] for f in frames]),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
    try:
        fcntl.fcntl(proc.stdout.fileno(), F_SETPIPE_SZ, 1 << 20)
    except OSError:  # a smaller pipe-max-size: the default pipe works, only with more reads
        pass
    frame_bytes = w * h * 3 // 2
    # BATCH frames a step: one upload, one colour conversion, one resize per size, one copy down, one sync
    # (each sync and launch costs CPU; a GPU shared with vLLM makes each wait longer).
    pinned = pinned_buffer(torch, frame_bytes)
    # The upload of the step before must be done before its buffer is read into again.
    uploaded = None
    made = 0
    delivered = 0
    for start in range(0, len(frames), BATCH):
        chunk = frames[start : start + BATCH]
        t = time.thread_time()
        if uploaded is not None:
            uploaded.synchronize()
        n = 0
        for _ in chunk:
            if read_into(proc.stdout, memoryview(pinned[n].numpy())) < frame_bytes:
                break
            n += 1
        delivered += n
        stages["read"] += time.thread_time() - t
        if n < len(chunk):
            break
        nv12 = pinned[:n].to("cuda", non_blocking=True).view(n, h * 3 // 2, w)
        uploaded = torch.cuda.Event()
        uploaded.record()
        made += make_step(maker, nv12, chunk, folders, stages, torch)
    proc.stdout.close()
    err = proc.stderr.read().decode(errors="replace")
    # This ffmpeg's own CPU (wait4: its rusage alone, also while other threads reap their own ffmpeg).
    _, status, usage = os.wait4(proc.pid, 0)
    rc = proc.returncode = os.waitstatus_to_exitcode(status)
    if rc != 0 or delivered != len(frames):
        return {"ok": False, "error": f"ffmpeg exit {rc}, {delivered} of {len(frames)} frames: {err.strip()[-600:]}"}
    return {"ok": True, "frames": delivered, "jpegs": made, "ffmpeg_cpu_s": usage.ru_utime + usage.ru_stime, "decoder": "ffmpeg"}


# Stored frame sizes a helper makes its pinned upload buffer for while it warms (FP_GPU_WARM_SHAPES): the SPEC's
# stored sizes are 720 or 480 on the short side, and a buffer serves every shape of the same byte count.
WARM_SHAPES = os.environ.get("FP_GPU_WARM_SHAPES", "1280x720,854x480")


def warm():
    """Everything a first job would otherwise pay: the imports, the CUDA context, cuBLAS (the resize's matmuls),
    libjpeg through pillow, the pinned upload buffers of the usual stored sizes. The line also says what the host has
    (torch, the GPU, pillow): the node side's probe of the GPU path for a run (issue 45)."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = {"ready": True}
    try:
        import io

        import numpy as np
        import PIL
        import torch
        from PIL import Image

        out["torch"], out["pillow"] = torch.__version__, PIL.__version__
        x = torch.ones((64, 64), device="cuda")
        float((x @ x).sum().item())
        out["gpu"] = torch.cuda.get_device_name(0)
        Image.fromarray(np.zeros((16, 16, 3), dtype=np.uint8)).save(io.BytesIO(), format="JPEG", quality=QUALITY, subsampling=2)
        for shape in filter(None, WARM_SHAPES.split(",")):
            w, h = (int(v) for v in shape.lower().split("x"))
            pinned_buffer(torch, w * h * 3 // 2)
        NVJPEG["encoder"], NVJPEG["why"] = checked_nvjpeg(torch)
        out["jpeg"] = "nvjpeg420" if NVJPEG["encoder"] is not None else "pillow"
        out["jpeg_why"] = NVJPEG["why"]
        out["decode"] = decode_way() if decode_way() != "nvcuvid" or fp_nvdec().available() else "ffmpeg (no libnvcuvid.so.1)"
    except Exception as e:  # not ready: every job would fail the same way
        out["ready"] = False
        out["warm_error"] = f"{type(e).__name__}: {e}"
    out["warm_s"] = round(time.perf_counter() - t0, 3)
    out["warm_cpu_s"] = round(time.process_time() - c0, 3)
    return out


def add_totals(totals, result):
    totals["jobs"] += 1
    if not result.get("ok"):
        totals["failed"] += 1
        return
    for k in ("frames", "jpegs", "seconds", "cpu_s", "ffmpeg_cpu_s"):
        totals[k] += result.get(k, 0)
    for k, v in result.get("stages_cpu_s", {}).items():
        totals["stages_cpu_s"][k] = totals["stages_cpu_s"].get(k, 0.0) + v


def probe(ffmpeg):
    out = {"torch": None, "torchvision": None, "cuda": False, "gpu": None, "nvjpeg": False, "pillow": None, "ffmpeg_cuda_hwaccel": False, "errors": []}
    try:
        import PIL

        out["pillow"] = PIL.__version__
    except ImportError as e:
        out["errors"].append(f"pillow: {e}")
    try:
        hw = subprocess.run([ffmpeg, "-hide_banner", "-hwaccels"], capture_output=True, text=True, timeout=30)
        out["ffmpeg_cuda_hwaccel"] = hw.returncode == 0 and "cuda" in hw.stdout.split()
    except (OSError, subprocess.SubprocessError) as e:
        out["errors"].append(f"ffmpeg: {e}")
    try:
        import torch
        import torchvision
        from torchvision.io import encode_jpeg

        out["torch"], out["torchvision"] = torch.__version__, torchvision.__version__
        out["cuda"] = bool(torch.cuda.is_available())
        if out["cuda"]:
            out["gpu"] = torch.cuda.get_device_name(0)
            data = encode_jpeg(torch.zeros((3, 16, 16), dtype=torch.uint8, device="cuda"), quality=QUALITY)
            out["nvjpeg"] = bytes(data.cpu().numpy())[:2] == b"\xff\xd8"
    except Exception as e:  # a missing or broken torch is an answer here, not a crash
        out["errors"].append(f"torch: {e}")
    return out


def job_threads(n):
    """N job threads, each with its own CUDA stream and the usual pinned buffers, made before the ready line."""
    from concurrent.futures import ThreadPoolExecutor

    import torch

    barrier = threading.Barrier(n)

    def init_thread():
        _LOCAL.stream = torch.cuda.Stream()
        for shape in filter(None, WARM_SHAPES.split(",")):
            w, h = (int(v) for v in shape.lower().split("x"))
            pinned_buffer(torch, w * h * 3 // 2)
        barrier.wait(timeout=120)  # one task a thread: n threads made

    pool = ThreadPoolExecutor(n, thread_name_prefix="fp-job")
    for f in [pool.submit(init_thread) for _ in range(n)]:
        f.result()
    return pool


def serve(lines, out, run, ready, pool=None):
    """A job a line from `lines`, its result a line on `out` with the job's "id" (the node side pairs them by it):
    one job at a time, or up to the pool's threads at once (answers then come as jobs end)."""
    totals = {"jobs": 0, "failed": 0, "frames": 0, "jpegs": 0, "seconds": 0.0, "cpu_s": 0.0, "ffmpeg_cpu_s": 0.0, "stages_cpu_s": {}}
    lock = threading.Lock()
    stats = os.environ.get("FP_GPU_STATS") == "1"

    def one(line):
        job = None
        try:
            job = json.loads(line)
            result = run(job)
        except Exception as e:  # one bad job fails that job, not the helper
            result = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        if isinstance(job, dict) and "id" in job:
            result["id"] = job["id"]
        with lock:
            add_totals(totals, result)
            if stats and result.get("ok"):
                totals.setdefault("per_job", []).append([job["width"], job["height"], result["frames"], result["jpegs"],
                                                         round(result["seconds"], 3), round(result["cpu_s"], 3),
                                                         round(result.get("ffmpeg_cpu_s", 0), 3), result.get("jpeg"),
                                                         result.get("decoder")])
            if stats and result.get("decode_fallback"):
                totals["decode_fallbacks"] = totals.get("decode_fallbacks", 0) + 1
                if totals["decode_fallbacks"] <= 3:
                    totals.setdefault("decode_fallback_why", []).append(result["decode_fallback"])
            out.write(json.dumps(result) + "\n")
            out.flush()

    for line in lines:
        if line.strip():
            if pool is None:
                one(line)
            else:
                pool.submit(one, line)
    if pool is not None:
        pool.shutdown(wait=True)
    if stats:  # the bench's per-helper sums (bench/gpuSweep)
        totals["helper_cpu_s"] = time.process_time()
        totals["warm"] = ready
        totals["jpeg_why_end"] = NVJPEG["why"]
        print("fp_gpu_frames stats: " + json.dumps(totals), file=sys.stderr, flush=True)
    return totals


def main(argv):
    ffmpeg = argv[argv.index("--ffmpeg") + 1] if "--ffmpeg" in argv else "ffmpeg"
    if "--probe" in argv:
        print(json.dumps(probe(ffmpeg)))
        return 0
    if os.environ.get("FP_GPU_SPIN") != "1":
        blocking_sync()
    if "--job" in argv:
        print(json.dumps(run_job(json.load(sys.stdin))))
        return 0
    if "--serve" in argv:  # one job a line on stdin, one result a line on stdout: CUDA starts once
        # Warm before the first job and say so (issue 45): the node side sends no video to a helper until it is ready,
        # and meanwhile makes them on the CPU, so imports and CUDA's start stay off the run's critical path.
        jobs = int(argv[argv.index("--jobs") + 1]) if "--jobs" in argv else 1
        ready = warm()
        pool = None
        if ready["ready"] and jobs > 1:
            try:
                pool = job_threads(jobs)
            except Exception as e:  # no stream or buffer for a thread: not ready
                ready.update({"ready": False, "warm_error": f"job threads: {type(e).__name__}: {e}"})
        ready["jobs"] = jobs
        print(json.dumps(ready), flush=True)
        if not ready["ready"]:  # never ready: the node side makes this helper's videos on the CPU
            return 3
        serve(sys.stdin, sys.stdout, run_job, ready, pool)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
