"""Outside reference for the findings' statistics: Debian's scipy and statsmodels (run with /usr/bin/python3).

  reference.py cases    < cases.json   -> the statistics of each case (Wilson, McNemar, BH, cluster-robust mean)
  reference.py package DIR             -> per benchmark x condition cells and the four contrasts, joined here
                                          from the package's own files (CSV, items, manifest) with pandas

Prints one JSON object. Nothing here is shared with the TypeScript code under test.
"""
import json
import sys

import numpy as np
import pandas as pd
from scipy import stats
from statsmodels.regression.linear_model import OLS
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

CONTRASTS = [("pixels", "v_32_s448", "v_32_s168"), ("frames", "v_128_s224", "v_8_s224"),
             ("video", "v_32", "v_blind"), ("temporal", "v_32", "v_1")]


def wilson(k, n):
    lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
    return float(lo), float(hi)


def mcnemar_p(b, c):
    p = float(mcnemar([[0, b], [c, 0]], exact=True).pvalue)
    if b + c > 0:  # the same number from scipy's exact binomial test
        p2 = float(stats.binomtest(min(b, c), b + c, 0.5).pvalue)
        assert abs(p - p2) < 1e-12, (p, p2)
    return p


def clustered(d, groups):
    d = np.asarray(d, dtype=float)
    codes = pd.factorize(pd.Series(groups))[0]
    fit = OLS(d, np.ones((len(d), 1))).fit(cov_type="cluster", cov_kwds={"groups": codes, "use_correction": False})
    lo95, hi95 = fit.conf_int(alpha=0.05)[0]
    lo90, hi90 = fit.conf_int(alpha=0.10)[0]
    se = float(fit.bse[0])
    mde = (stats.norm.ppf(0.975) + stats.norm.ppf(0.80)) * se
    return {"mean": float(fit.params[0]), "se": se, "lo": float(lo95), "hi": float(hi95), "lo90": float(lo90), "hi90": float(hi90), "mde": float(mde)}


def cases(spec):
    out = {"wilson": [wilson(k, n) for k, n in spec["wilson"]],
           "mcnemar": [mcnemar_p(b, c) for b, c in spec["mcnemar"]],
           "bh": [[float(q) for q in multipletests(ps, method="fdr_bh")[1]] for ps in spec["bh"]],
           "clustered": [clustered(c["d"], c["groups"]) for c in spec["clustered"]],
           "z": [float(stats.norm.ppf(0.975)), float(stats.norm.ppf(0.95)), float(stats.norm.ppf(0.80))]}
    return out


def package(root):
    df = pd.read_csv(f"{root}/results/conditions_results.csv", dtype=str, keep_default_na=False)
    df = df.drop_duplicates(["benchmark", "item_id", "condition"], keep="first")
    man = pd.read_json(f"{root}/manifest/manifest_subset.jsonl", lines=True, dtype=str)
    man = man.drop_duplicates(["benchmark", "video_id"], keep="first")
    out = {}
    benches = json.load(open(f"{root}/items/scope_summary.json"))["benchmarks"]
    for bench in benches:
        items = pd.read_json(f"{root}/items/samples/{bench}.jsonl", lines=True, dtype={"item_id": str, "video_id": str})
        items = items.merge(man, on=["benchmark", "video_id"], how="left")
        items["cluster"] = items["hash"].where(items["hash"].notna(), bench + "/" + items["video_id"])
        rows = df[df.benchmark == bench]
        ok = rows[(rows.status == "ok") & rows.correct.isin(["0", "1"])].copy()
        ok["y"] = ok.correct.astype(int)
        cells = {}
        for cond, g in rows.groupby("condition"):
            g_ok = ok[ok.condition == cond]
            n, k = len(g_ok), int(g_ok.y.sum())
            lo, hi = wilson(k, n) if n else (None, None)
            cells[cond] = {"n": n, "k": k, "lo": lo, "hi": hi, "na": int((g.status == "NA").sum()), "reuse": int((g.status == "reuse").sum())}
        contrasts = {}
        for name, a, b in CONTRASTS:
            pa = ok[ok.condition == a][["item_id", "y"]].rename(columns={"y": "ya"})
            pb = ok[ok.condition == b][["item_id", "y"]].rename(columns={"y": "yb"})
            pr = items[["item_id", "cluster"]].merge(pa, on="item_id").merge(pb, on="item_id")
            n = len(pr)
            bb = int(((pr.ya == 1) & (pr.yb == 0)).sum())
            cc = int(((pr.ya == 0) & (pr.yb == 1)).sum())
            res = {"n": n, "b": bb, "c": cc}
            if n:
                res.update(clustered((pr.ya - pr.yb).tolist(), pr.cluster.tolist()))
                res["p"] = mcnemar_p(bb, cc)
            contrasts[name] = res
        chance = float((1.0 / items.options.apply(len)).mean())
        out[bench] = {"cells": cells, "contrasts": contrasts, "chance": chance}
    # BH over every benchmark x {pixels, frames} with pairs
    keys = [(b, n) for b in benches for n in ("pixels", "frames") if out[b]["contrasts"][n]["n"] > 0]
    if keys:
        qs = multipletests([out[b]["contrasts"][n]["p"] for b, n in keys], method="fdr_bh")[1]
        for (b, n), q in zip(keys, qs):
            out[b]["contrasts"][n]["q"] = float(q)
    return out


if __name__ == "__main__":
    if sys.argv[1] == "cases":
        print(json.dumps(cases(json.load(sys.stdin))))
    else:
        print(json.dumps(package(sys.argv[2])))
