#!/usr/bin/env python3
"""Applies the prototype's two final rules to a Python run's predictions, for comparison on equal
terms: lines with a mean character probability < 0.5 dropped (PaddleOCR's drop_score), and
letter-spaced words ("K O R A L I S") joined. usage: post.py in.json out.json"""
import json, sys
d = json.load(open(sys.argv[1]))
for pid, p in d.items():
    keep = []
    for l in p["lines"]:
        if l.get("conf", 1.0) < 0.5:
            continue
        w = l["text"].split()
        l["text"] = "".join(w) if len(w) >= 4 and all(len(x) <= 2 for x in w) else " ".join(w)
        keep.append(l)
    p["lines"] = keep
json.dump(d, open(sys.argv[2], "w"), ensure_ascii=False)
