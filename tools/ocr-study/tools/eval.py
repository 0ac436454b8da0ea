#!/usr/bin/env python3
"""Scores a candidate's predictions against the poster ground truth.

Predictions: {poster_id: {"ms": float, "lines": [{"box": [x0,y0,x1,y1] px, "text": str,
"letter_height_px": float|null}]}}.

Matching (line level):
  * a reported line is ON TEXT when at least half of its area lies inside ground-truth line boxes
    (each ground-truth box grown by 25 % of its height, for the detector's margin), or inside a box
    of text printed in the background photograph (posters/photo_text.json, found by eye);
  * a reported line is ASSIGNED to the ground-truth line that contains its centre (grown box)
    with the largest overlap; a ground-truth line is FOUND when the reported lines assigned to it
    cover at least 50 % of its width;
  * CER of a found line: Levenshtein distance between the assigned lines' texts (left to right,
    joined by a space) and the true text, over the true text's length (exact characters, case and
    accents count; runs of spaces collapsed);
  * letter-height error of a found line: the widest assigned line's letter height against the
    font's cap height at the size used (the rule: cap height on every line).
  * same-size pairs: two found lines of one group (one font, one size): relative difference of
    their reported heights (|a-b| / mean) <= 5 %.
usage: eval.py NAME pred.json [--csv per_line.csv]
"""
import glob
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def lev(a, b):
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def norm(s):
    return " ".join(s.replace("’", "'").split())


def grow(b, f=0.25):
    m = (b[3] - b[1]) * f
    return [b[0] - m, b[1] - m, b[2] + m, b[3] + m]


def inter(a, b):
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(0, w) * max(0, h)


def area(b):
    return max(0, b[2] - b[0]) * max(0, b[3] - b[1])


PHOTO_TEXT = json.load(open(f"{HERE}/../posters/photo_text.json"))


def score(pred, kind=None, acceptance=False):
    tot_pred = on_text = tot_gt = found = on_photo_text = 0
    lh_err, lh_err_caps, lh_err_mixed, cers, rows, ms, pairs = [], [], [], [], [], [], []
    for jf in sorted(glob.glob(f"{HERE}/../posters/out/*.json")):
        gt = json.load(open(jf))
        pid = gt["id"]
        if acceptance:
            # the acceptance check's posters: a photograph over the top half; its lines: bold capitals
            if gt["layout"] not in ("photo_top", "red_head", "texture_top") or gt["background"] != "photo":
                continue
            gt = dict(gt, lines=[l for l in gt["lines"] if l["case"] == "caps"])
        if pid not in pred:
            continue
        P = pred[pid]
        ms.append(P["ms"])
        gl = gt["lines"]
        gboxes = [grow(l["box"]) for l in gl]
        assigned = {i: [] for i in range(len(gl))}
        for p in P["lines"]:
            b = p["box"]
            tot_pred += 1
            a = area(b)
            cov = sum(inter(b, g) for g in gboxes)
            if a > 0 and cov >= 0.5 * a:
                on_text += 1
            elif a > 0 and sum(inter(b, g) for g in PHOTO_TEXT.get(pid, [])) >= 0.5 * a:
                on_text += 1
                on_photo_text += 1
            cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
            cands = [(inter(b, g), i) for i, g in enumerate(gboxes) if g[0] <= cx <= g[2] and g[1] <= cy <= g[3]]
            if cands:
                assigned[max(cands)[1]].append(p)
        heights = {}
        for i, l in enumerate(gl):
            tot_gt += 1
            ps = sorted(assigned[i], key=lambda p: p["box"][0])
            gw = l["box"][2] - l["box"][0]
            covw = sum(max(0, min(p["box"][2], l["box"][2]) - max(p["box"][0], l["box"][0])) for p in ps)
            ok = covw >= 0.5 * gw
            row = {"poster": pid, "text": l["text"], "case": l["case"], "cap_px": l["cap_px"], "found": ok}
            if ok:
                found += 1
                text = norm(" ".join(p.get("text") or "" for p in ps))
                if any(p.get("text") is not None and p.get("text") != "" for p in ps) or kind != "boxes":
                    c = lev(text, norm(l["text"])) / max(1, len(norm(l["text"])))
                    cers.append(c)
                    row.update(read=text, cer=round(c, 3))
                wide = max(ps, key=lambda p: p["box"][2] - p["box"][0])
                lh = wide.get("letter_height_px")
                if lh:
                    e = abs(lh - l["cap_px"]) / l["cap_px"]
                    lh_err.append(e)
                    (lh_err_caps if l["case"] == "caps" else lh_err_mixed).append(e)
                    heights[i] = lh
                    row.update(lh=round(lh, 2), lh_err=round(e, 3))
            rows.append(row)
        groups = {}
        for i, l in enumerate(gl):
            groups.setdefault(l["group"], []).append(i)
        for g, idx in groups.items():
            if len(idx) == 2 and gl[idx[0]]["case"] == gl[idx[1]]["case"]:
                if all(i in heights for i in idx):
                    a_, b_ = heights[idx[0]], heights[idx[1]]
                    pairs.append((abs(a_ - b_) / ((a_ + b_) / 2), pid, gl[idx[0]]["case"]))
                else:
                    pairs.append((None, pid, gl[idx[0]]["case"]))

    def q(v, f):
        return f(v) if v else float("nan")

    return {
        "posters": len(ms),
        "precision": on_text / tot_pred if tot_pred else float("nan"),
        "recall": found / tot_gt,
        "reported": tot_pred, "on_photo_text": on_photo_text,
        "gt_lines": tot_gt,
        "lh_median": q(lh_err, statistics.median), "lh_max": q(lh_err, max),
        "lh_median_caps": q(lh_err_caps, statistics.median), "lh_max_caps": q(lh_err_caps, max),
        "lh_median_mixed": q(lh_err_mixed, statistics.median), "lh_max_mixed": q(lh_err_mixed, max),
        "lh_within20": sum(e <= 0.2 for e in lh_err) / len(lh_err) if lh_err else float("nan"),
        "cer_le20": sum(c <= 0.2 for c in cers) / found if cers else float("nan"),
        "cer_median": q(cers, statistics.median),
        "pairs_ok": sum(1 for p in pairs if p[0] is not None and p[0] <= 0.05), "pairs": len(pairs),
        "pairs_caps_ok": sum(1 for p in pairs if p[0] is not None and p[0] <= 0.05 and p[2] == "caps"),
        "pairs_caps": sum(1 for p in pairs if p[2] == "caps"),
        "ms_median": q(ms, statistics.median), "ms_max": q(ms, max),
    }, rows


def main():
    name, path = sys.argv[1], sys.argv[2]
    kind = sys.argv[3] if len(sys.argv) > 3 and not sys.argv[3].startswith("--") else None
    pred = json.load(open(path))
    s, rows = score(pred, kind)
    sa, _ = score(pred, kind, acceptance=True)
    s["acceptance_subset"] = sa
    out = f"{HERE}/../results/{name}"
    os.makedirs(os.path.dirname(out), exist_ok=True)
    json.dump({"summary": s, "lines": rows}, open(out + ".score.json", "w"), ensure_ascii=False, indent=1)
    print(f"{name:28s} P={s['precision']:.3f} R={s['recall']:.3f} ({s['reported']} rep, {s['on_photo_text']} on photo text / {s['gt_lines']} gt) "
          f"LH med={s['lh_median']:.3f} max={s['lh_max']:.3f} [caps {s['lh_median_caps']:.3f}/{s['lh_max_caps']:.3f} "
          f"mixed {s['lh_median_mixed']:.3f}/{s['lh_max_mixed']:.3f}] CER<=20%={s['cer_le20']:.3f} "
          f"CERmed={s['cer_median']:.3f} pairs={s['pairs_ok']}/{s['pairs']} (caps {s['pairs_caps_ok']}/{s['pairs_caps']}) "
          f"ms med={s['ms_median']:.0f} max={s['ms_max']:.0f}")
    a = sa
    print(f"{'  photo-top, caps lines':28s} {a['posters']} posters: R={a['recall']:.3f} LH med={a['lh_median']:.3f} "
          f"max={a['lh_max']:.3f} CER<=20%={a['cer_le20']:.3f} pairs={a['pairs_ok']}/{a['pairs']}")


if __name__ == "__main__":
    main()
