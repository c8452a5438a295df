"""Qwen3-Omni placeholder counts from transformers' own processor, for the cases bench/device/omniCountCases.ts wrote.

    python3 bench/device/omni_counts.py CASES.json OUT_DIR [DEADLINE_S]

No weights and no hub: the processor is built from Qwen/Qwen3-Omni-30B-A3B-Instruct's preprocessor_config.json
(PREPROCESSOR_CONFIG below) written into a temporary folder with a config.json naming the model type and a tiny
tokenizer (the `tokenizers` library) that holds the special tokens, then loaded with AutoProcessor as vLLM's
`cached_get_processor` would; if that fails, the four parts are built directly and handed to Qwen3OmniMoeProcessor.
Each case: `processor(text, videos=[frames], audio=[samples], **the request's kwargs)` on zero-valued frames (on the
GPU when there is one) and noise audio zero-padded to a multiple of hop_length as vLLM's `_call_hf_processor` does;
the counts are the <|video_pad|> and <|audio_pad|> ids in its input_ids. Beside them: the audio tokens of the
feature extractor on the unpadded track (transformers alone) and the video tokens with `cap_pixels_per_frame=True`.
Writes OUT_DIR/omni_counts.json (every case: ours, transformers', the grid), OUT_DIR/omni_counts.log and
OUT_DIR/sources.tar.gz (the transformers files that did the work, to read a mismatch against).
"""
import inspect
import io
import json
import os
import sys
import tarfile
import tempfile
import time
import traceback

import numpy as np
import torch
import transformers

# Qwen/Qwen3-Omni-30B-A3B-Instruct preprocessor_config.json (the values counts.ts cites: patch 16, merge 2,
# temporal 2, min/max pixels 3136 / 12845056, Whisper at 16 kHz, hop 160, 128 mel bins, 300 s chunks).
PREPROCESSOR_CONFIG = {
    "chunk_length": 300,
    "dither": 0.0,
    "feature_extractor_type": "WhisperFeatureExtractor",
    "feature_size": 128,
    "hop_length": 160,
    "image_mean": [0.5, 0.5, 0.5],
    "image_processor_type": "Qwen2VLImageProcessor",
    "image_std": [0.5, 0.5, 0.5],
    "max_pixels": 12845056,
    "merge_size": 2,
    "min_pixels": 3136,
    "n_fft": 400,
    "n_samples": 4800000,
    "nb_max_frames": 30000,
    "padding_side": "right",
    "padding_value": 0.0,
    "patch_size": 16,
    "processor_class": "Qwen3OmniMoeProcessor",
    "return_attention_mask": True,
    "sampling_rate": 16000,
    "temporal_patch_size": 2,
}
# The checkpoint's special tokens the processor reads from its tokenizer (ids as in its config.json / tokenizer).
NAMED_TOKENS = {
    "image_token": ("<|image_pad|>", 151655),
    "video_token": ("<|video_pad|>", 151656),
    "audio_token": ("<|audio_pad|>", 151675),
    "vision_bos_token": ("<|vision_start|>", 151652),
    "vision_eos_token": ("<|vision_end|>", 151653),
    "audio_bos_token": ("<|audio_start|>", 151669),
    "audio_eos_token": ("<|audio_end|>", 151670),
}
T = {k: v[0] for k, v in NAMED_TOKENS.items()}

LOG = []


def log(*a):
    line = " ".join(str(x) for x in a)
    print(line, flush=True)
    LOG.append(line)


def tiny_tokenizer():
    from tokenizers import AddedToken, Tokenizer, models, pre_tokenizers

    vocab = {"[UNK]": 0, "describe": 1}
    for tok, tid in NAMED_TOKENS.values():
        vocab[tok] = tid
    t = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    t.pre_tokenizer = pre_tokenizers.Whitespace()
    t.add_special_tokens([AddedToken(tok, special=True, normalized=False) for tok, _ in NAMED_TOKENS.values()])
    Fast = getattr(transformers, "PreTrainedTokenizerFast", None) or getattr(transformers, "TokenizersBackend")
    try:
        tok = Fast(tokenizer_object=t, unk_token="[UNK]", extra_special_tokens=T)
    except Exception as e:  # older keyword layout
        log("tokenizer: extra_special_tokens refused:", repr(e))
        tok = Fast(tokenizer_object=t, unk_token="[UNK]")
    for k, v in T.items():
        if getattr(tok, k, None) != v:
            setattr(tok, k, v)
    return tok


def build():
    d = tempfile.mkdtemp()
    json.dump(PREPROCESSOR_CONFIG, open(os.path.join(d, "preprocessor_config.json"), "w"))
    json.dump({"model_type": "qwen3_omni_moe"}, open(os.path.join(d, "config.json"), "w"))
    tok = tiny_tokenizer()
    try:
        tok.save_pretrained(d)
        p = transformers.AutoProcessor.from_pretrained(d)
        for k, v in T.items():
            if getattr(p.tokenizer, k, None) != v:
                setattr(p.tokenizer, k, v)
            setattr(p, k, v)
        return p, "AutoProcessor.from_pretrained (preprocessor_config.json + config.json + tiny tokenizer)"
    except Exception:
        log("AutoProcessor failed:\n" + traceback.format_exc())
    from transformers.models.qwen3_omni_moe.processing_qwen3_omni_moe import Qwen3OmniMoeProcessor

    parts = {}
    for name, auto in (
        ("video_processor", "AutoVideoProcessor"),
        ("image_processor", "AutoImageProcessor"),
        ("feature_extractor", "AutoFeatureExtractor"),
    ):
        try:
            parts[name] = getattr(transformers, auto).from_pretrained(d)
        except Exception:
            log(f"{auto} failed:\n" + traceback.format_exc())
    if "video_processor" not in parts:
        parts["video_processor"] = transformers.Qwen2VLVideoProcessor(
            patch_size=16, temporal_patch_size=2, merge_size=2, min_pixels=3136, max_pixels=12845056
        )
    if "image_processor" not in parts:
        parts["image_processor"] = transformers.Qwen2VLImageProcessor(
            patch_size=16, temporal_patch_size=2, merge_size=2, min_pixels=3136, max_pixels=12845056
        )
    if "feature_extractor" not in parts:
        parts["feature_extractor"] = transformers.WhisperFeatureExtractor(
            feature_size=128, sampling_rate=16000, hop_length=160, chunk_length=300, n_fft=400, return_attention_mask=True
        )
    p = Qwen3OmniMoeProcessor(tokenizer=tok, **parts)
    return p, "Qwen3OmniMoeProcessor(parts built from preprocessor_config.json)"


def video_kwargs(case, extra=None):
    """The request's processor kwargs: caption's flat mm_processor_kwargs (fps), AVTime's videos_kwargs."""
    v = case["video"]
    if case["kind"] == "caption":
        return {**v["kwargs"], **(extra or {})}
    if v["kwargs"] or extra:
        return {"videos_kwargs": {**v["kwargs"], **(extra or {})}}
    return {}


def placeholder_counts(proc, out):
    ids = np.asarray(out["input_ids"]).reshape(-1)
    return {"video": int((ids == proc.tokenizer.convert_tokens_to_ids(T["video_token"])).sum()),
            "audio": int((ids == proc.tokenizer.convert_tokens_to_ids(T["audio_token"])).sum())}


def pad_to_hop_length(x, hop):
    """vLLM's Qwen3OmniMoeThinkerMultiModalProcessor._call_hf_processor: audio zero-padded to a multiple of hop."""
    return x if x.shape[-1] % hop == 0 else np.pad(x, (0, hop - x.shape[-1] % hop))


def counts(proc, case, dev, rng):
    """transformers' counts for the case: as vLLM calls the processor (audio pre-padded to the hop), the audio
    tokens of the processor called on the raw track, and the video tokens with cap_pixels_per_frame=True (the
    default transformers announces for v5.22)."""
    from transformers.models.qwen3_omni_moe.processing_qwen3_omni_moe import _get_feat_extract_output_lengths

    v = case["video"]
    frames = torch.zeros((v["frames"], v["height"], v["width"], 3), dtype=torch.uint8, device=dev)
    video_part = T["vision_bos_token"] + T["video_token"] + T["vision_eos_token"]
    text = video_part
    if case["kind"] == "caption":
        text += T["audio_bos_token"] + T["audio_token"] + T["audio_eos_token"]
    raw = None if case["audio16k"] is None else (rng.standard_normal(case["audio16k"]) * 0.05).astype(np.float32)
    hop = proc.feature_extractor.hop_length
    audio = None if raw is None else [pad_to_hop_length(raw, hop)]
    out = proc(text="describe " + text, videos=[frames], audio=audio, use_audio_in_video=case["useAudioInVideo"], **video_kwargs(case))
    got = placeholder_counts(proc, out)
    g = out["video_grid_thw"]
    grid = [int(x) for x in np.asarray(g.cpu() if hasattr(g, "cpu") else g).reshape(-1)]
    del out
    extra = {}
    try:
        if raw is not None:
            fe = proc.feature_extractor(raw, sampling_rate=16000, padding=True, truncation=False, return_attention_mask=True)
            extra["audio_unpadded"] = int(_get_feat_extract_output_lengths(np.asarray(fe["attention_mask"]).sum(-1)).reshape(-1)[0])
    except Exception as e:
        extra["audio_unpadded_error"] = repr(e)[:300]
    try:
        capped = proc(text="describe " + video_part, videos=[frames], use_audio_in_video=False, **video_kwargs(case, {"cap_pixels_per_frame": True}))
        extra["video_capped"] = placeholder_counts(proc, capped)["video"]
        del capped
    except Exception as e:
        extra["video_capped_error"] = repr(e)[:300]
    del frames
    return got, grid, extra


def sources(proc, out_dir):
    mods = {inspect.getsourcefile(type(proc)), inspect.getsourcefile(type(proc.video_processor)),
            inspect.getsourcefile(type(proc.feature_extractor)), inspect.getsourcefile(type(proc.tokenizer))}
    for m in ("transformers.processing_utils", "transformers.video_processing_utils", "transformers.video_utils",
              "transformers.models.qwen2_vl.image_processing_qwen2_vl"):
        try:
            mods.add(inspect.getsourcefile(__import__(m, fromlist=["x"])))
        except Exception:
            pass
    with tarfile.open(os.path.join(out_dir, "sources.tar.gz"), "w:gz") as tar:
        for f in sorted(m for m in mods if m):
            tar.add(f, arcname=f.split("site-packages/")[-1])


def main():
    cases_file, out_dir = sys.argv[1], sys.argv[2]
    deadline = float(sys.argv[3]) if len(sys.argv) > 3 else 420
    t0 = time.time()
    os.makedirs(out_dir, exist_ok=True)
    cases = json.load(open(cases_file))["cases"]
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    log(f"transformers {transformers.__version__}, torch {torch.__version__}, device {dev}, {len(cases)} cases")
    for m in ("torchvision", "tokenizers"):
        try:
            log(m, __import__(m).__version__)
        except Exception as e:
            log(m, "missing:", repr(e))
    result = {"transformers": transformers.__version__, "torch": torch.__version__, "preprocessor_config": PREPROCESSOR_CONFIG}
    try:
        proc, how = build()
    except Exception:
        log("build failed:\n" + traceback.format_exc())
        result["error"] = "build failed"
        return finish(result, out_dir)
    result["built_by"] = how
    result["classes"] = {k: type(getattr(proc, k)).__name__ for k in ("video_processor", "image_processor", "feature_extractor", "tokenizer")}
    log("built by", how, result["classes"])
    try:
        sources(proc, out_dir)
    except Exception:
        log("sources:\n" + traceback.format_exc())
    rng = np.random.default_rng(25)
    rows, errors = [], []
    for i, c in enumerate(cases):
        if time.time() - t0 > deadline:
            log(f"deadline: stopped after {i} cases")
            break
        try:
            got, grid, extra = counts(proc, c, dev, rng)
        except Exception as e:
            if dev == "cuda" and i == 0:
                log("cuda frames failed, frames on the CPU from here:\n" + traceback.format_exc())
                dev = "cpu"
                try:
                    got, grid, extra = counts(proc, c, dev, rng)
                except Exception:
                    errors.append({"id": c["id"], "error": traceback.format_exc()[-2000:]})
                    continue
            else:
                errors.append({"id": c["id"], "error": repr(e)[:2000]})
                continue
        rows.append({"id": c["id"], "kind": c["kind"], "ours": c["predicted"], "theirs": got, "grid": grid,
                     "our_size": c["predictedSize"], "frames": c["video"]["frames"], **extra})
        if i % 25 == 0:
            torch.cuda.empty_cache() if dev == "cuda" else None
            log(f"{i} cases, {time.time() - t0:.0f} s")
    result["rows"] = rows
    result["errors"] = errors
    result["seconds"] = round(time.time() - t0, 1)
    finish(result, out_dir)


def finish(result, out_dir):
    rows = result.get("rows", [])
    mism = [r for r in rows if r["ours"] != r["theirs"]]
    by_kind = {}
    for r in rows:
        k = by_kind.setdefault(r["kind"], {"cases": 0, "match": 0})
        k["cases"] += 1
        k["match"] += r["ours"] == r["theirs"]
    result["totals"] = {"cases": len(rows), "match": len(rows) - len(mism), "mismatch": len(mism), "errors": len(result.get("errors", [])), "by_kind": by_kind}
    with_audio = [r for r in rows if "audio_unpadded" in r]
    result["totals"]["unpadded_audio_differs"] = sum(r["audio_unpadded"] != r["ours"]["audio"] for r in with_audio)
    result["totals"]["with_audio"] = len(with_audio)
    result["totals"]["capped_video_differs"] = sum(r.get("video_capped", r["ours"]["video"]) != r["ours"]["video"] for r in rows)
    log("totals", json.dumps(result["totals"]))
    for r in mism[:20]:
        log("MISMATCH", json.dumps(r))
    json.dump(result, open(os.path.join(out_dir, "omni_counts.json"), "w"))
    open(os.path.join(out_dir, "omni_counts.log"), "w").write("\n".join(LOG) + "\n")


if __name__ == "__main__":
    main()
