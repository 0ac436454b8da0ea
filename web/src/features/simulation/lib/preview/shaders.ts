/**
 * GLSL ES 3.00 sources of the WebGL2 preview: a full-screen triangle, the shared panel code
 * (H⁻¹ and analytic Jacobian per pixel, anisotropic trilinear taps through textureLod, contain
 * background, the ordered adjustments of rendering.md §3, exact edge coverage by clipping),
 * the day/night composite pass, the bloom emission pass and the separable blur pass. Every
 * formula mirrors the CPU reference in cpu.ts / adjust.ts / pyramid.ts / coverage.ts.
 */

export const VERTEX = /* glsl */ `#version 300 es
void main() {
  // Full-screen triangle: (-1,-1), (3,-1), (-1,3).
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
`;

const HEADER = /* glsl */ `#version 300 es
precision highp float;
precision highp int;
precision highp sampler2D;
`;

/** Panel code shared by the composite and the bloom emission passes. */
const PANEL = /* glsl */ `
uniform sampler2D uCreative;
uniform vec3 uH0;        // rows of H^-1 (photo pixels -> s, t, w)
uniform vec3 uH1;
uniform vec3 uH2;
uniform vec4 uFit;       // su, u0, sv, v0
uniform vec2 uCSize;     // Wc, Hc (level 0)
uniform float uLevels;   // levels of the full pyramid
uniform float uLodBase;  // first uploaded level (0 unless the creative exceeds the texture limit)
uniform bool uContain;
uniform vec3 uBg;        // linear
uniform float uBias;
uniform float uSharpen;
uniform float uBright;
uniform float uGamma;
uniform float uSat;
uniform vec3 uGain;
uniform float uGlare;
uniform vec3 uEdges[4];  // unit normal and offset: inside when dot(n, p) + c >= 0

vec3 footprintSample(vec2 uv, vec2 jx, vec2 jy, float bias) {
  float lx = length(jx);
  float ly = length(jy);
  float lmax = max(lx, ly);
  float lmin = max(min(lx, ly), 1e-6);
  int n = int(clamp(ceil(lmax / lmin), 1.0, 4.0));
  vec2 major = lx >= ly ? jx : jy;
  float lod = clamp(max(0.0, log2(lmax / float(n))) + bias, 0.0, uLevels - 1.0);
  lod = max(lod, uLodBase);
  float k0 = floor(lod);
  float k1 = min(k0 + 1.0, uLevels - 1.0);
  float f = lod - k0;
  vec3 acc = vec3(0.0);
  for (int i = 0; i < 4; i++) {
    if (i >= n) break;
    float o = (float(i) + 0.5) / float(n) - 0.5;
    vec2 p = (uv + major * o) / uCSize;
    vec3 a = textureLod(uCreative, p, k0 - uLodBase).rgb;
    if (f > 0.0) a = mix(a, textureLod(uCreative, p, k1 - uLodBase).rgb, f);
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
  vec2 uv = vec2(uFit.x * s + uFit.y, uFit.z * t + uFit.w);
  vec3 c = footprintSample(uv, jx, jy, uBias);
  vec3 cb = c;
  if (uSharpen > 0.0) cb = footprintSample(uv, jx, jy, uBias + 1.5);
  if (uContain) {
    float ru = max(abs(jx.x) + abs(jy.x), 1e-6);
    float rv = max(abs(jx.y) + abs(jy.y), 1e-6);
    float ac = containCov(uv.x, uCSize.x, ru) * containCov(uv.y, uCSize.y, rv);
    c = mix(uBg, c, ac);
    cb = mix(uBg, cb, ac);
  }
  // 1. sharpness (unsharp mask; the blur side is in uBias)
  if (uSharpen > 0.0) c = c + uSharpen * (c - cb);
  // 2. brightness, 3. contrast around linear mid-grey
  c = max(c, 0.0) * uBright;
  if (uGamma != 1.0) c = 0.18 * pow(c / 0.18, vec3(uGamma));
  // 4. saturation
  float y = dot(c, vec3(0.2126, 0.7152, 0.0722));
  c = max(vec3(0.0), y + (c - y) * uSat);
  // 5. warmth, 6. auto match / 7. lighting
  c *= uGain;
  // 8. glare
  if (uGlare > 0.0) {
    float z = (0.8 * s + 0.6 * t - 0.45) / 0.12;
    c = c + (1.0 - min(c, 1.0)) * (uGlare * exp(-z * z));
  }
  // 9. clamp
  return clamp(c, 0.0, 1.0);
}

// Area of the square of side 'size' centred on c inside the quad, / size^2.
float coverage(vec2 c, float size) {
  float hs = 0.5 * size;
  float r = hs * 1.41421356;
  bool inside = true;
  float d0[4];
  for (int e = 0; e < 4; e++) {
    float d = dot(uEdges[e].xy, c) + uEdges[e].z;
    if (d <= -r) return 0.0;
    if (d < r) inside = false;
    d0[e] = d;
  }
  if (inside) return 1.0;
  vec2 poly[8];
  vec2 next[8];
  poly[0] = vec2(-hs, -hs);
  poly[1] = vec2(hs, -hs);
  poly[2] = vec2(hs, hs);
  poly[3] = vec2(-hs, hs);
  int n = 4;
  for (int e = 0; e < 4; e++) {
    vec2 nrm = uEdges[e].xy;
    float off = d0[e];
    int m = 0;
    for (int i = 0; i < 8; i++) {
      if (i >= n) break;
      vec2 a = poly[i];
      vec2 b = poly[i + 1 < n ? i + 1 : 0];
      float da = dot(nrm, a) + off;
      float db = dot(nrm, b) + off;
      if (da >= 0.0 && m < 8) { next[m] = a; m++; }
      if ((da >= 0.0) != (db >= 0.0) && m < 8) {
        next[m] = a + (b - a) * (da / (da - db));
        m++;
      }
    }
    n = m;
    if (n < 3) return 0.0;
    for (int i = 0; i < 8; i++) poly[i] = next[i];
  }
  float area = 0.0;
  for (int i = 0; i < 8; i++) {
    if (i >= n) break;
    vec2 a = poly[i];
    vec2 b = poly[i + 1 < n ? i + 1 : 0];
    area += a.x * b.y - b.x * a.y;
  }
  return min(1.0, abs(area) * 0.5 / (size * size));
}
`;

/** The composite pass: day or night, mask, bloom add, sRGB encode, grain. */
export const COMPOSITE = `${HEADER}${PANEL}
uniform sampler2D uPhoto;   // SRGB8_ALPHA8: sampled in linear light
uniform sampler2D uMask;    // R8
uniform sampler2D uBloom;   // low-res blurred emission (linear)
uniform vec2 uSize;         // photo W, H
uniform bool uHasMask;
uniform bool uBefore;
uniform vec3 uPhotoGain;
uniform float uBloomStrength;
uniform vec2 uBloomUV;      // 1 / (f * bloom size)
uniform float uGrain;       // n * sigma_photo, 8-bit units
uniform vec4 uBox;          // quad bounding box (x0, y0, x1, y1), photo pixels
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
  vec3 photo = texelFetch(uPhoto, ip, 0).rgb;
  if (uBefore) {
    outColor = vec4(floor(encodeSrgb(photo) * 255.0 + 0.5) / 255.0, 1.0);
    return;
  }
  vec3 lin = photo * uPhotoGain;
  float alpha = 0.0;
  if (p.x >= uBox.x - 1.0 && p.y >= uBox.y - 1.0 && p.x <= uBox.z + 1.0 && p.y <= uBox.w + 1.0) {
    float a = coverage(p, 1.0);
    if (a > 0.0) {
      vec3 c = panelColor(p, 1.0);
      float m = uHasMask ? texture(uMask, p / uSize).r : 0.0;
      alpha = a * (1.0 - m);
      lin = mix(lin, c, alpha);
    }
  }
  if (uBloomStrength > 0.0) lin += uBloomStrength * texture(uBloom, p * uBloomUV).rgb;
  vec3 v = encodeSrgb(lin) * 255.0;
  if (alpha > 0.0 && uGrain > 0.0) v += alpha * uGrain * grainZ(ip);
  outColor = vec4(clamp(floor(v + 0.5), 0.0, 255.0) / 255.0, 1.0);
}
`;

/** Bloom emission at 1/f resolution: panel · α_edge averaged over each f×f block. */
export const EMISSION = `${HEADER}${PANEL}
uniform float uFactor;
uniform vec4 uBox;
out vec4 outColor;
void main() {
  vec2 p = gl_FragCoord.xy * uFactor;  // block centre, photo pixels (y down)
  float h = 0.5 * uFactor;
  if (p.x < uBox.x - h || p.y < uBox.y - h || p.x > uBox.z + h || p.y > uBox.w + h) {
    outColor = vec4(0.0);
    return;
  }
  float a = coverage(p, uFactor);
  outColor = a > 0.0 ? vec4(panelColor(p, uFactor) * a, 1.0) : vec4(0.0);
}
`;

/** One direction of the separable Gaussian, averaging only texels inside the image. */
export const BLUR = `${HEADER}
uniform sampler2D uSrc;
uniform ivec2 uDir;
uniform float uSigma;
uniform int uRadius;
out vec4 outColor;
void main() {
  ivec2 size = textureSize(uSrc, 0);
  ivec2 p = ivec2(gl_FragCoord.xy);
  vec3 acc = vec3(0.0);
  float ws = 0.0;
  float k = -0.5 / (uSigma * uSigma);
  for (int i = -64; i <= 64; i++) {
    if (i < -uRadius || i > uRadius) continue;
    ivec2 q = p + uDir * i;
    if (q.x < 0 || q.y < 0 || q.x >= size.x || q.y >= size.y) continue;
    float w = exp(float(i * i) * k);
    acc += texelFetch(uSrc, q, 0).rgb * w;
    ws += w;
  }
  outColor = vec4(acc / ws, 1.0);
}
`;
