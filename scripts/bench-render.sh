#!/usr/bin/env bash
# Speed and quality of the perspective renderer (docs/architecture/rendering.md, "Measured").
#
# Builds the release binary, generates the 12-megapixel benchmark scene (a 4000 × 3000 photo,
# a 1920 × 1080 creative, a close-up panel of about 1600 × 950 px), then on one thread, in
# ROUNDS rounds (each its own time window on a shared, noisy host):
#   - `regard render --bench N` plain, with all adjustments, and with all adjustments at night (LED);
#   - OpenCV's aliased cv2.warpPerspective (INTER_LINEAR) of the same panel's bounding box plus a
#     mask blend, right after them, as the reference for speed;
#   - each round's ratios (median against median), and at the end the median of the rounds'
#     ratios with their range: a ratio is only compared with the OpenCV runs of its own round;
#   - ImageMagick's EWA `-distort Perspective` when `convert`/`magick` is installed (whole command,
#     decode and encode included, so only a rough point of comparison);
#   - the quality example (checkerboard flatness and edge-coverage PSNRs).
# Needs Python 3 with pip: OpenCV and NumPy are installed into a throw-away virtual environment
# (never used by the tests). Usage: scripts/bench-render.sh [runs per round] [rounds]
set -euo pipefail

RUNS="${1:-20}"
ROUNDS="${2:-3}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="${BENCH_DIR:-${TMPDIR:-/tmp}/regard-bench-render}"
VENV="${BENCH_VENV:-$WORK/venv}"
mkdir -p "$WORK"

cd "$ROOT"
cargo build --release -q -p regard --bin regard
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/regard"

if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q opencv-python-headless numpy
fi
PY="$VENV/bin/python"

# The scene: textured photo (JPEG, as from a camera) and creative (PNG), deterministic.
"$PY" - "$WORK" <<'PYGEN'
import sys, numpy as np, cv2
work = sys.argv[1]
rng = np.random.default_rng(7)
h, w = 3000, 4000
y, x = np.mgrid[0:h, 0:w].astype(np.float32)
photo = np.stack([80 + 60 * np.sin(x / 300), 90 + 50 * np.cos(y / 250), 100 + 40 * np.sin((x + y) / 500)], -1)
photo += rng.normal(0, 6, photo.shape)
cv2.imwrite(f"{work}/photo.jpg", np.clip(photo, 0, 255).astype(np.uint8)[..., ::-1], [cv2.IMWRITE_JPEG_QUALITY, 92])
ch, cw = 1080, 1920
y, x = np.mgrid[0:ch, 0:cw]
creative = np.zeros((ch, cw, 3), np.uint8)
creative[..., 0] = (x * 255 // cw).astype(np.uint8)
creative[..., 1] = (((x // 8 + y // 8) % 2) * 200).astype(np.uint8)
creative[..., 2] = (y * 255 // ch).astype(np.uint8)
cv2.putText(creative, "REGARD 2026", (120, 600), cv2.FONT_HERSHEY_SIMPLEX, 8, (255, 255, 255), 24)
cv2.imwrite(f"{work}/creative.png", creative[..., ::-1])
PYGEN

QUAD="1200,1000,2820,1050,2800,1960,1210,1990"
ALL=(--match --brightness 0.1 --contrast 0.2 --saturation 0.15 --warmth 0.2 --sharpness 0.3 --grain 0.5 --glare 0.3)
render() { # round, label, extra flags...
  local round="$1" label="$2"; shift 2
  local json
  json="$("$BIN" render --creative "$WORK/creative.png" --photo "$WORK/photo.jpg" --quad "$QUAD" \
    --out "$WORK/out-$label.jpg" --bench "$RUNS" "$@" | tail -n 1)"
  echo "$json" > "$WORK/render-$label-$round.json"
  printf '%-22s %s\n' "regard render $label" "$json"
}

cat > "$WORK/opencv.py" <<'PYCV'
import sys, json, time, numpy as np, cv2
work, runs, quad, out = sys.argv[1], int(sys.argv[2]), [float(v) for v in sys.argv[3].split(",")], sys.argv[4]
cv2.setNumThreads(1)
photo = cv2.imread(f"{work}/photo.jpg")
creative = cv2.imread(f"{work}/creative.png")
ch, cw = creative.shape[:2]
q = np.array(quad, np.float32).reshape(4, 2)
x0, y0 = np.floor(q.min(0)).astype(int)
x1, y1 = np.ceil(q.max(0)).astype(int)
src = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float32)
# OpenCV's pixel centres are at integers: shift by half a pixel on both sides, then into the box.
H = cv2.getPerspectiveTransform((src - 0.5).astype(np.float32), (q - 0.5 - [x0, y0]).astype(np.float32))
white = np.full((ch, cw), 255, np.uint8)
def once(out):
    warped = cv2.warpPerspective(creative, H, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
    alpha = cv2.warpPerspective(white, H, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
    a = cv2.merge([alpha, alpha, alpha])
    box = out[y0:y1, x0:x1]
    # out = box + (warped − box) · α / 255, in 8-bit sRGB as usual for OpenCV pipelines.
    blended = cv2.add(cv2.multiply(warped, a, scale=1 / 255), cv2.multiply(box, 255 - a, scale=1 / 255))
    out[y0:y1, x0:x1] = blended
    return out
def figures(times):
    times.sort()
    return {"median_ms": round(times[len(times) // 2], 3), "p10_ms": round(times[int(0.1 * (runs - 1) + 0.5)], 3), "p90_ms": round(times[int(0.9 * (runs - 1) + 0.5)], 3)}
# The reference: composed into a new image (the photo copied first, timed), as an OpenCV
# pipeline usually does, and the same in place (the photo restored untimed before each run, as
# `regard render --bench` does): the second is the stricter comparison.
copied, in_place = [], []
for _ in range(runs):
    t = time.perf_counter(); once(photo.copy()); copied.append((time.perf_counter() - t) * 1e3)
    work_image = photo.copy()
    t = time.perf_counter(); once(work_image); in_place.append((time.perf_counter() - t) * 1e3)
res = figures(copied)
res["in_place"] = figures(in_place)
json.dump(res, open(out, "w"))
print(f"{'opencv warp+blend':<22} {json.dumps(res)}")
PYCV

LABELS=(plain all night-led)
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), load $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round of $ROUNDS (load $(cut -d' ' -f1 /proc/loadavg))"
  render "$round" plain
  render "$round" all "${ALL[@]}"
  render "$round" night-led "${ALL[@]}" --night led
  "$PY" "$WORK/opencv.py" "$WORK" "$RUNS" "$QUAD" "$WORK/opencv-$round.json"
  "$PY" - "$WORK" "$round" "${LABELS[@]}" <<'PYR'
import sys, json
work, round, labels = sys.argv[1], sys.argv[2], sys.argv[3:]
o = json.load(open(f"{work}/opencv-{round}.json"))
for label in labels:
    r = json.load(open(f"{work}/render-{label}-{round}.json"))
    print(f"  ratio regard {label} / opencv: {r['median_ms'] / o['median_ms']:.2f}"
          f" (in place: {r['median_ms'] / o['in_place']['median_ms']:.2f})")
PYR
done

"$PY" - "$WORK" "$ROUNDS" "${LABELS[@]}" <<'PYSUM'
import sys, json, statistics
work, rounds, labels = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
cvs = [json.load(open(f"{work}/opencv-{k}.json")) for k in range(1, rounds + 1)]
cv = [c["median_ms"] for c in cvs]
cvi = [c["in_place"]["median_ms"] for c in cvs]
span = lambda v, f=".1f": f"{statistics.median(v):{f}} ({min(v):{f}}–{max(v):{f}})"
print(f"summary over {rounds} rounds (median of the rounds, then their range)")
print(f"  opencv warp+blend: {span(cv)} ms; in place: {span(cvi)} ms")
for label in labels:
    ms = [json.load(open(f"{work}/render-{label}-{k}.json"))["median_ms"] for k in range(1, rounds + 1)]
    ratios = [m / c for m, c in zip(ms, cv)]
    ratios_in_place = [m / c for m, c in zip(ms, cvi)]
    print(f"  regard {label}: {span(ms)} ms; ratio to opencv {span(ratios, '.2f')}, "
          f"to opencv in place {span(ratios_in_place, '.2f')}")
PYSUM

IM=""
if command -v magick >/dev/null 2>&1; then IM="magick"; elif command -v convert >/dev/null 2>&1 && convert -version 2>/dev/null | grep -q ImageMagick; then IM="convert"; fi
if [ -n "$IM" ]; then
  IFS=, read -r a b c d e f g h <<< "$QUAD"
  start=$(date +%s.%N)
  MAGICK_THREAD_LIMIT=1 $IM "$WORK/photo.jpg" \( "$WORK/creative.png" -alpha set -virtual-pixel transparent \
    -distort Perspective "0,0 $a,$b 1920,0 $c,$d 1920,1080 $e,$f 0,1080 $g,$h" -crop 4000x3000+0+0 +repage \) \
    -compose over -composite "$WORK/out-imagemagick.jpg"
  end=$(date +%s.%N)
  echo "imagemagick EWA distort + composite (one thread, decode and encode included): $(echo "($end - $start) * 1000" | bc) ms"
fi

CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}" cargo run --release -q -p regard-vision --example bench_render_quality
