#!/usr/bin/env python3
"""overlay.py poster_id [pred.json] -> views/<id>.jpg: ground truth in green, predictions in red."""
import json, sys, os
from PIL import Image, ImageDraw
here = os.path.dirname(os.path.abspath(__file__))
pid = sys.argv[1]
img = Image.open(f"{here}/../posters/out/{pid}.png").convert("RGB")
gt = json.load(open(f"{here}/../posters/out/{pid}.json"))
d = ImageDraw.Draw(img)
for l in gt["lines"]:
    d.rectangle(l["box"], outline=(0, 255, 0), width=3)
if len(sys.argv) > 2:
    pred = json.load(open(sys.argv[2]))[pid]
    W, H = img.size
    for p in pred["lines"]:
        x0, y0, x1, y1 = p["box"]
        d.rectangle([x0, y0, x1, y1], outline=(255, 0, 0), width=3)
        lh = p.get("letter_height_px")
        d.text((x0, y1 + 2), (p.get("text") or "") + (f" [{lh:.0f}]" if lh else ""), fill=(255, 0, 255))
os.makedirs(f"{here}/../views", exist_ok=True)
s = 1024 / max(img.size)
img.resize((int(img.width * s), int(img.height * s))).save(f"{here}/../views/{pid}{'_'+os.path.basename(sys.argv[2]).split('.')[0] if len(sys.argv)>2 else ''}.png")
