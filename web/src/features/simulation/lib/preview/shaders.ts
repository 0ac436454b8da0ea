/**
 * GLSL ES 3.00 sources of the WebGL2 preview: a full-screen triangle, the shared panel code
 * (H⁻¹ and analytic Jacobian per pixel, anisotropic trilinear taps through the level kernels of
 * pyramid.ts, each as four bilinear fetches, the view from there's widened footprint, contain
 * background, the ordered adjustments of rendering.md §3, analytic edge coverage),
 * the day/night composite pass, the bloom emission pass and the separable blur pass. Every
 * formula mirrors the CPU reference in cpu.ts / adjust.ts / pyramid.ts / coverage.ts. Optional
 * features are compiled in per variant (#define) because software GL (SwiftShader) pays for
 * untaken branches.
 */

export const VERTEX = /* glsl */ `#version 300 es
void main() {
  // Full-screen triangle: (-1,-1), (3,-1), (-1,3).
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
`;

/** Feature switches compiled into a program variant (software GL pays for untaken branches). */
export interface Variant {
  /** The panel pass (else the photo-only pass over the whole canvas). */
  panel?: boolean;
  sharpen?: boolean;
  contain?: boolean;
  glare?: boolean;
  mask?: boolean;
  bloom?: boolean;
  grain?: boolean;
  /** The view from there: the footprint widened by the eye's blur (uViewC). */
  view?: boolean;
}

function header(defines: string[]): string {
  return `#version 300 es
${defines.map((d) => `#define ${d}\n`).join('')}precision highp float;
precision highp int;
precision highp sampler2D;
`;
}

/** Key of a variant (its defines). */
export function variantDefines(v: Variant): string[] {
  const d: string[] = [];
  if (v.panel) d.push('PANEL_PASS');
  if (v.panel && v.sharpen) d.push('SHARPEN');
  if (v.panel && v.contain) d.push('CONTAIN');
  if (v.panel && v.glare) d.push('GLARE');
  if (v.panel && v.mask) d.push('MASK');
  if (v.bloom) d.push('BLOOM');
  if (v.panel && v.grain) d.push('GRAIN');
  if (v.panel && v.view) d.push('VIEW');
  return d;
}

/** Panel code shared by the composite and the bloom emission passes. */
const PANEL = /* glsl */ `
#ifdef PANEL_PASS
uniform sampler2D uCreative;
uniform vec3 uH0;        // rows of H^-1 (photo pixels -> s, t, w)
uniform vec3 uH1;
uniform vec3 uH2;
uniform vec4 uFit;       // su, u0, sv, v0
uniform vec2 uCSize;     // Wc, Hc (level 0)
uniform float uLevels;   // levels of the full pyramid
uniform float uLodBase;  // first uploaded level (0 unless the creative exceeds the texture limit)
uniform vec3 uBg;        // linear
uniform float uBias;
uniform float uSharpen;
uniform float uBright;
uniform float uGamma;
uniform float uSat;
uniform vec3 uGain;
uniform float uGlare;
uniform vec3 uEdges[4];  // unit normal and offset: inside when dot(n, p) + c >= 0
uniform vec2 uViewC;     // the view's blur C = diag(x, y), creative pixels^2 (0 when off)

#ifdef VIEW
// The footprint widened by the view's blur (view.ts's widen, rendering.md §2): the principal
// axes of S = jx jx^T + jy jy^T + C, the major one first.
void widen(inout vec2 jx, inout vec2 jy) {
  float a = jx.x * jx.x + jy.x * jy.x + uViewC.x;
  float b = jx.x * jx.y + jy.x * jy.y;
  float c = jx.y * jx.y + jy.y * jy.y + uViewC.y;
  float m = 0.5 * (a + c);
  float h = 0.5 * (a - c);
  float r = sqrt(h * h + b * b);
  float l1 = sqrt(m + r);
  float l2 = sqrt(max(m - r, 0.0));
  // atan(0, 0) is undefined in GLSL; Math.atan2(0, 0) is 0.
  float th = (b == 0.0 && a == c) ? 0.0 : 0.5 * atan(2.0 * b, a - c);
  float cs = cos(th);
  float sn = sin(th);
  jx = l1 * vec2(cs, sn);
  jy = l2 * vec2(-sn, cs);
}
#endif

// Weights of texels c - 1, c, c + 1 along one axis, g = x - c (rendering.md §2): level 0's
// bilinear moved by beta towards the quadratic B-spline, or the comb of the levels above (the
// mean of bilinear taps half a texel either side, blind to the level's Nyquist frequency).
vec3 axisWeights(float g, bool level0, float beta) {
  if (level0) {
    vec3 b = vec3(max(-g, 0.0), 1.0 - abs(g), max(g, 0.0));
    vec3 q = vec3(0.5 * (0.5 - g) * (0.5 - g), 0.75 - g * g, 0.5 * (0.5 + g) * (0.5 + g));
    return b + (q - b) * beta;
  }
  return vec3((0.5 - g) * 0.5, 0.5, (0.5 + g) * 0.5);
}

// Two bilinear fetches along one axis that add up to the weights w of texels c - 1, c, c + 1:
// (w.x, a) on c - 1 and c, (w.y - a, w.z) on c and c + 1; returns their positions (texel-centre
// coordinates) and weights.
vec4 axisFetches(float c, vec3 w) {
  float a = w.y * w.x / max(w.x + w.z, 1e-8);
  float wa = w.x + a;
  float wb = w.y - a + w.z;
  return vec4(c - 1.0 + a / max(wa, 1e-8), wa, c + w.z / max(wb, 1e-8), wb);
}

// Level k (of the full pyramid) read through its 3x3 kernel at uv (level-0 pixels), texels
// clamped to the edges: the 3x3 weights of pyramid.ts as four bilinear fetches (the filtering
// unit's few bits of fraction move a value by far less than a level).
vec3 sampleLevel(float k, vec2 uv, float beta) {
  float lod = k - uLodBase;
  vec2 size = vec2(textureSize(uCreative, int(lod)));
  vec2 x = clamp(uv * size / uCSize - 0.5, vec2(-1.5), size + 0.5);
  vec2 c = min(floor(x + 0.5), size);
  bool level0 = k < 0.5;
  vec4 fx = axisFetches(c.x, axisWeights(x.x - c.x, level0, beta));
  vec4 fy = axisFetches(c.y, axisWeights(x.y - c.y, level0, beta));
  vec2 a = (vec2(fx.x, fy.x) + 0.5) / size;
  vec2 b = (vec2(fx.z, fy.z) + 0.5) / size;
  return fy.y * (fx.y * textureLod(uCreative, a, lod).rgb + fx.w * textureLod(uCreative, vec2(b.x, a.y), lod).rgb)
    + fy.w * (fx.y * textureLod(uCreative, vec2(a.x, b.y), lod).rgb + fx.w * textureLod(uCreative, b, lod).rgb);
}

vec3 footprintSample(vec2 uv, vec2 jx, vec2 jy, float bias) {
  float lx = length(jx);
  float ly = length(jy);
  float lmax = max(lx, ly);
  float lmin = max(min(lx, ly), 1e-6);
  int n = int(clamp(floor(lmax / lmin + 0.5), 1.0, 4.0));
  vec2 major = lx >= ly ? jx : jy;
  float lod = clamp(max(0.0, log2(max(lmax / float(n), lmin))) + bias, 0.0, uLevels - 1.0);
  lod = max(lod, uLodBase);
  float k0 = floor(lod);
  float k1 = min(k0 + 1.0, uLevels - 1.0);
  float f = lod - k0;
  float beta = min(1.0, 2.0 * lod);
  vec3 acc = vec3(0.0);
  for (int i = 0; i < 4; i++) {
    if (i >= n) break;
    float o = (float(i) + 0.5) / float(n) - 0.5;
    vec2 p = uv + major * o;
    vec3 a = sampleLevel(k0, p, beta);
    if (f > 0.0) a = mix(a, sampleLevel(k1, p, beta), f);
    acc += a;
  }
  return acc / float(n);
}

float containCov(float p, float size, float r) {
  return clamp(0.5 + min(p, size - p) / r, 0.0, 1.0);
}

// The panel's linear colour at photo point p (y down) for a footprint of 'scale' pixels.
vec3 panelColor(vec2 p, float scale) {
  vec3 h = vec3(p, 1.0);
  float w = dot(uH2, h);
  float s = dot(uH0, h) / w;
  float t = dot(uH1, h) / w;
  vec2 ds = (uH0.xy - s * uH2.xy) / w;  // ds/dx, ds/dy
  vec2 dt = (uH1.xy - t * uH2.xy) / w;  // dt/dx, dt/dy
  vec2 jx = vec2(uFit.x * ds.x, uFit.z * dt.x) * scale;
  vec2 jy = vec2(uFit.x * ds.y, uFit.z * dt.y) * scale;
#ifdef VIEW
  widen(jx, jy);
#endif
  vec2 uv = vec2(uFit.x * s + uFit.y, uFit.z * t + uFit.w);
  vec3 c = footprintSample(uv, jx, jy, uBias);
#ifdef SHARPEN
  vec3 cb = footprintSample(uv, jx, jy, uBias + 1.5);
#endif
#ifdef CONTAIN
  float ru = max(abs(jx.x) + abs(jy.x), 1e-6);
  float rv = max(abs(jx.y) + abs(jy.y), 1e-6);
  float ac = containCov(uv.x, uCSize.x, ru) * containCov(uv.y, uCSize.y, rv);
  c = mix(uBg, c, ac);
#ifdef SHARPEN
  cb = mix(uBg, cb, ac);
#endif
#endif
  // 1. sharpness (unsharp mask; the blur side is in uBias)
#ifdef SHARPEN
  c = c + uSharpen * (c - cb);
#endif
  // 2. brightness, 3. contrast around linear mid-grey
  c = max(c, 0.0) * uBright;
  if (uGamma != 1.0) c = 0.18 * pow(c / 0.18, vec3(uGamma));
  // 4. saturation
  float y = dot(c, vec3(0.2126, 0.7152, 0.0722));
  c = max(vec3(0.0), y + (c - y) * uSat);
  // 5. warmth, 6. auto match / 7. lighting
  c *= uGain;
  // 8. glare
#ifdef GLARE
  float z = (0.8 * s + 0.6 * t - 0.45) / 0.12;
  c = c + (1.0 - min(c, 1.0)) * (uGlare * exp(-z * z));
#endif
  // 9. clamp
  return clamp(c, 0.0, 1.0);
}

// Fraction of a unit square on the inner side of one edge, d = signed distance of its centre
// (n unit): the CDF of n·q for q uniform in the square, a sum of two uniform variables.
float edgeCov(float d, vec2 n) {
  float a = max(abs(n.x), abs(n.y));
  float b = max(min(abs(n.x), abs(n.y)), 1e-6);
  float h1 = 0.5 * (a + b);
  float h0 = 0.5 * (a - b);
  float x = clamp(d, -h1, h1);
  float k = 0.5 / (a * b);
  if (x < -h0) return (x + h1) * (x + h1) * k;
  if (x > h0) return 1.0 - (h1 - x) * (h1 - x) * k;
  return 0.5 + x / a;
}

// Area of the square of side 'size' centred on c inside the quad, / size^2. Exact wherever a
// single edge crosses the square; at the quad's corners the product of the per-edge fractions
// (near-exact) stands in for the clipped polygon, which software GL runs several times slower.
float coverage(vec2 c, float size) {
  float cov = 1.0;
  for (int e = 0; e < 4; e++) {
    cov *= edgeCov((dot(uEdges[e].xy, c) + uEdges[e].z) / size, uEdges[e].xy);
  }
  return cov;
}
#endif
`;

/**
 * The composite: the photo pass (whole canvas: photo, night darkening, bloom) and, scissored
 * to the quad's bounding box, the panel pass (coverage, panel colour, mask, blend, grain).
 */
export function compositeSource(v: Variant): string {
  return `${header(variantDefines(v))}${PANEL}
uniform sampler2D uPhoto;   // SRGB8_ALPHA8: sampled in linear light
uniform sampler2D uMask;    // R8
uniform sampler2D uBloom;   // low-res blurred emission (linear)
uniform vec2 uSize;         // photo W, H
uniform vec3 uPhotoGain;
uniform float uBloomStrength;
uniform vec2 uBloomUV;      // 1 / (f * bloom size)
uniform float uGrain;       // n * sigma_photo, 8-bit units
out vec4 outColor;

vec3 encodeSrgb(vec3 l) {
  l = clamp(l, 0.0, 1.0);
  vec3 hi = 1.055 * pow(max(l, vec3(1e-10)), vec3(1.0 / 2.4)) - 0.055;
  return mix(l * 12.92, hi, step(vec3(0.0031308), l));
}

float grainZ(ivec2 q) {
  uint h = (uint(q.x) * 0x27d4eb2du) ^ (uint(q.y) * 0x165667b1u);
  h = (h ^ (h >> 15u)) * 0x85ebca6bu;
  h = (h ^ (h >> 13u)) * 0xc2b2ae35u;
  h = h ^ (h >> 16u);
  return (float(h >> 8u) / 16777216.0 - 0.5) * 3.4641016151377544;
}

void main() {
  vec2 p = vec2(gl_FragCoord.x, uSize.y - gl_FragCoord.y);
  ivec2 ip = ivec2(floor(p));
  vec3 lin = texelFetch(uPhoto, ip, 0).rgb * uPhotoGain;
#ifdef PANEL_PASS
  float alpha = coverage(p, 1.0);
  if (alpha > 0.0) {
    vec3 c = panelColor(p, 1.0);
#ifdef MASK
    alpha *= 1.0 - texture(uMask, p / uSize).r;
#endif
    lin = mix(lin, c, alpha);
  }
#endif
#ifdef BLOOM
  lin += uBloomStrength * texture(uBloom, p * uBloomUV).rgb;
#endif
  vec3 v = encodeSrgb(lin) * 255.0;
#ifdef GRAIN
  v += alpha * uGrain * grainZ(ip);
#endif
  outColor = vec4(clamp(floor(v + 0.5), 0.0, 255.0) / 255.0, 1.0);
}
`;
}

/** Bloom emission at 1/f resolution: panel · α_edge averaged over each f×f block. */
export function emissionSource(v: Variant): string {
  return `${header(variantDefines({ ...v, panel: true, mask: false, bloom: false, grain: false }))}${PANEL}
uniform float uFactor;
out vec4 outColor;
void main() {
  vec2 p = gl_FragCoord.xy * uFactor;  // block centre, photo pixels (y down)
  float a = coverage(p, uFactor);
  outColor = a > 0.0 ? vec4(panelColor(p, uFactor) * a, 1.0) : vec4(0.0);
}
`;
}

/** The photo as it is (its plain RGBA8 copy), rows flipped to the canvas. */
export const COPY = `${header([])}
uniform sampler2D uSrc;
uniform float uHeight;
out vec4 outColor;
void main() {
  outColor = vec4(texelFetch(uSrc, ivec2(int(gl_FragCoord.x), int(uHeight - gl_FragCoord.y)), 0).rgb, 1.0);
}
`;

/** Radius buckets of the blur (taps beyond 3σ weigh next to nothing). */
export const BLUR_RADII = [8, 16, 32, 64] as const;

/** One direction of the separable Gaussian, averaging only texels inside the image. */
export function blurSource(radius: number): string {
  return `${header([`RADIUS ${radius}`])}
uniform sampler2D uSrc;
uniform ivec2 uDir;
uniform float uSigma;
out vec4 outColor;
void main() {
  ivec2 size = textureSize(uSrc, 0);
  ivec2 p = ivec2(gl_FragCoord.xy);
  vec3 acc = vec3(0.0);
  float ws = 0.0;
  float k = -0.5 / (uSigma * uSigma);
  for (int i = -RADIUS; i <= RADIUS; i++) {
    ivec2 q = p + uDir * i;
    float w = exp(float(i * i) * k);
    if (q.x >= 0 && q.y >= 0 && q.x < size.x && q.y < size.y) {
      acc += texelFetch(uSrc, q, 0).rgb * w;
      ws += w;
    }
  }
  outColor = vec4(acc / ws, 1.0);
}
`;
}
