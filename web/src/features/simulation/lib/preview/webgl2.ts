/**
 * The WebGL2 live preview: uploads the photo (SRGB8_ALPHA8), the creative's linear-light
 * pyramid built in JS (every level RGBA16F, type FLOAT) and the mask (R8) once per source;
 * each render() then only sets uniforms and draws one full-screen triangle for the composite
 * (plus, at night, a low-res emission pass and a separable blur for the bloom). Handles
 * context loss (re-uploads on restore) and frees every GL object on dispose.
 */
import { DEFAULT_STATS, prepareStatsImage, StatsCache } from './stats';
import { BLUR_RADII, blurSource, compositeSource, COPY, emissionSource, variantDefines, VERTEX, type Variant } from './shaders';
import { frameConstants, type FrameConstants, type MaskImage } from './cpu';
import { quadToPixels } from './homography';
import { NIGHT_PHOTO } from './adjust';
import { linearToSrgb8, SRGB8_TO_LINEAR } from './srgb';
import { buildPyramid, linearLevel } from './pyramid';
import { toImageData, toMask } from './sources';
import type { PreviewParams, PreviewRenderer, PreviewSources, RendererOptions } from './types';

interface Resources {
  /** Program variants by key, compiled on first use. */
  programs: Map<string, WebGLProgram>;
  vao: WebGLVertexArrayObject;
  photo: WebGLTexture | null;
  /** The photo's bytes as plain RGBA8, copied as they are when the photo is unchanged. */
  photoCopy: WebGLTexture | null;
  /** The same, darkened for the night (built on first use). */
  nightCopy: WebGLTexture | null;
  creative: WebGLTexture | null;
  mask: WebGLTexture | null;
  maskSize: [number, number];
  bloom: [WebGLTexture, WebGLTexture] | null;
  bloomSize: [number, number, number];
  fbos: [WebGLFramebuffer, WebGLFramebuffer] | null;
  lodBase: number;
  levels: number;
  floatTargets: boolean;
  uniforms: Map<WebGLProgram, Map<string, WebGLUniformLocation | null>>;
}

function compile(gl: WebGL2RenderingContext, vs: string, fs: string): WebGLProgram {
  const program = gl.createProgram();
  for (const [type, src] of [
    [gl.VERTEX_SHADER, vs],
    [gl.FRAGMENT_SHADER, fs],
  ] as const) {
    const sh = gl.createShader(type);
    if (!sh) throw new Error('preview: createShader failed');
    gl.shaderSource(sh, src);
    gl.compileShader(sh);
    if (!gl.getShaderParameter(sh, gl.COMPILE_STATUS) && !gl.isContextLost()) {
      throw new Error(`preview: shader: ${gl.getShaderInfoLog(sh) ?? ''}`);
    }
    gl.attachShader(program, sh);
    gl.deleteShader(sh);
  }
  gl.linkProgram(program);
  if (!gl.getProgramParameter(program, gl.LINK_STATUS) && !gl.isContextLost()) {
    throw new Error(`preview: link: ${gl.getProgramInfoLog(program) ?? ''}`);
  }
  return program;
}

export class WebGL2Preview implements PreviewRenderer {
  readonly kind = 'webgl2' as const;
  lastFrameMs = 0;
  /** When true, render() waits for the GPU (finish + a 1-px read) so lastFrameMs includes it. */
  measure: boolean;

  private readonly gl: WebGL2RenderingContext;
  private res: Resources | null = null;
  private photo: ImageData | null = null;
  private creative: ImageData | null = null;
  private maskImg: MaskImage | null = null;
  private lastParams: PreviewParams | null = null;
  private readonly stats: StatsCache;
  private lost = false;
  private readonly probe = new Uint8Array(4);
  private disposed = false;

  constructor(
    private readonly canvas: HTMLCanvasElement,
    gl: WebGL2RenderingContext,
    options: RendererOptions,
  ) {
    this.gl = gl;
    this.measure = options.measure ?? false;
    this.stats = new StatsCache(null, () => this.rerender(), options.statsIntervalMs ?? 100);
    canvas.addEventListener('webglcontextlost', this.onLost);
    canvas.addEventListener('webglcontextrestored', this.onRestored);
    this.res = this.createResources();
    // The common variants up front, so the first frame does not stall on compiling.
    this.program('c:', () => compositeSource({}));
    this.program('c:PANEL_PASS', () => compositeSource({ panel: true }));
    this.program('copy', () => COPY);
  }

  private readonly onLost = (e: Event): void => {
    e.preventDefault();
    this.lost = true;
    this.res = null;
  };

  private readonly onRestored = (): void => {
    this.lost = false;
    this.res = this.createResources();
    this.uploadAll();
    this.rerender();
  };

  private rerender(): void {
    if (this.lastParams && !this.disposed) this.render(this.lastParams);
  }

  private createResources(): Resources {
    const gl = this.gl;
    const vao = gl.createVertexArray();
    const floatTargets = gl.getExtension('EXT_color_buffer_float') !== null;
    return {
      programs: new Map(),
      vao,
      photo: null,
      photoCopy: null,
      nightCopy: null,
      creative: null,
      mask: null,
      maskSize: [0, 0],
      bloom: null,
      bloomSize: [0, 0, 0],
      fbos: null,
      lodBase: 0,
      levels: 1,
      floatTargets,
      uniforms: new Map(),
    };
  }

  private program(key: string, source: () => string): WebGLProgram | null {
    const res = this.res;
    if (!res) return null;
    let p = res.programs.get(key);
    if (!p) {
      p = compile(this.gl, VERTEX, source());
      res.programs.set(key, p);
    }
    return p;
  }

  private loc(program: WebGLProgram, name: string): WebGLUniformLocation | null {
    const res = this.res;
    if (!res) return null;
    let m = res.uniforms.get(program);
    if (!m) {
      m = new Map();
      res.uniforms.set(program, m);
    }
    if (!m.has(name)) m.set(name, this.gl.getUniformLocation(program, name));
    return m.get(name) ?? null;
  }

  setSources(sources: PreviewSources): void {
    this.photo = toImageData(sources.photo);
    this.creative = toImageData(sources.creative);
    this.maskImg = toMask(sources.mask);
    this.canvas.width = this.photo.width;
    this.canvas.height = this.photo.height;
    this.stats.setImage(prepareStatsImage(this.photo));
    this.uploadAll();
  }

  setMask(mask: HTMLCanvasElement | ImageData | null): void {
    this.maskImg = toMask(mask);
    this.uploadMask();
  }

  private uploadAll(): void {
    if (!this.res || this.lost) return;
    this.uploadPhoto();
    this.uploadCreative();
    this.uploadMask();
  }

  private uploadPhoto(): void {
    const gl = this.gl;
    const res = this.res;
    if (!res || !this.photo) return;
    if (res.photo) gl.deleteTexture(res.photo);
    const tex = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, tex);
    gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
    gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
    gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.SRGB8_ALPHA8, this.photo.width, this.photo.height);
    gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, this.photo.width, this.photo.height, gl.RGBA, gl.UNSIGNED_BYTE, this.photo.data);
    this.texParams(gl.NEAREST, gl.NEAREST);
    res.photo = tex;
    if (res.photoCopy) gl.deleteTexture(res.photoCopy);
    if (res.nightCopy) gl.deleteTexture(res.nightCopy);
    res.nightCopy = null;
    const copy = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, copy);
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA8, this.photo.width, this.photo.height);
    gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, this.photo.width, this.photo.height, gl.RGBA, gl.UNSIGNED_BYTE, this.photo.data);
    this.texParams(gl.NEAREST, gl.NEAREST);
    res.photoCopy = copy;
  }

  /** The photo darkened for the night (8-bit, as the server's tables), built on first use. */
  private nightCopy(): WebGLTexture | null {
    const gl = this.gl;
    const res = this.res;
    if (!res || !this.photo) return null;
    if (res.nightCopy) return res.nightCopy;
    const tables = NIGHT_PHOTO.map((g) => Uint8Array.from({ length: 256 }, (_, v) => linearToSrgb8(SRGB8_TO_LINEAR[v] * g)));
    const src = this.photo.data;
    const bytes = new Uint8Array(src.length);
    for (let i = 0; i < src.length; i += 4) {
      bytes[i] = tables[0][src[i]];
      bytes[i + 1] = tables[1][src[i + 1]];
      bytes[i + 2] = tables[2][src[i + 2]];
      bytes[i + 3] = 255;
    }
    const tex = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, tex);
    gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.RGBA8, this.photo.width, this.photo.height);
    gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, this.photo.width, this.photo.height, gl.RGBA, gl.UNSIGNED_BYTE, bytes);
    this.texParams(gl.NEAREST, gl.NEAREST);
    res.nightCopy = tex;
    return tex;
  }

  private uploadCreative(): void {
    const gl = this.gl;
    const res = this.res;
    if (!res || !this.creative) return;
    if (res.creative) gl.deleteTexture(res.creative);
    const levels = buildPyramid(linearLevel(this.creative.data, this.creative.width, this.creative.height));
    const max = gl.getParameter(gl.MAX_TEXTURE_SIZE) as number;
    let base = 0;
    while (base < levels.length - 1 && Math.max(levels[base].width, levels[base].height) > max) base++;
    const up = levels.slice(base);
    const tex = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, tex);
    gl.pixelStorei(gl.UNPACK_ALIGNMENT, 4);
    gl.texStorage2D(gl.TEXTURE_2D, up.length, gl.RGBA16F, up[0].width, up[0].height);
    up.forEach((l, k) => gl.texSubImage2D(gl.TEXTURE_2D, k, 0, 0, l.width, l.height, gl.RGBA, gl.FLOAT, l.data));
    this.texParams(gl.LINEAR_MIPMAP_NEAREST, gl.LINEAR);
    res.creative = tex;
    res.lodBase = base;
    res.levels = levels.length;
  }

  private uploadMask(): void {
    const gl = this.gl;
    const res = this.res;
    if (!res) return;
    const m = this.maskImg;
    if (!m) return;
    gl.pixelStorei(gl.UNPACK_ALIGNMENT, 1);
    const bytes = m.data instanceof Uint8Array ? m.data : Uint8Array.from(m.data);
    if (res.mask && res.maskSize[0] === m.width && res.maskSize[1] === m.height) {
      gl.bindTexture(gl.TEXTURE_2D, res.mask);
      gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, m.width, m.height, gl.RED, gl.UNSIGNED_BYTE, bytes);
      return;
    }
    if (res.mask) gl.deleteTexture(res.mask);
    const tex = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, tex);
    gl.texStorage2D(gl.TEXTURE_2D, 1, gl.R8, m.width, m.height);
    gl.texSubImage2D(gl.TEXTURE_2D, 0, 0, 0, m.width, m.height, gl.RED, gl.UNSIGNED_BYTE, bytes);
    this.texParams(gl.LINEAR, gl.LINEAR);
    res.mask = tex;
    res.maskSize = [m.width, m.height];
  }

  private texParams(min: number, mag: number): void {
    const gl = this.gl;
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, min);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, mag);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
  }

  /** Two low-res targets for the bloom (emission, then ping-pong blur). */
  private bloomTargets(w: number, h: number, f: number): void {
    const gl = this.gl;
    const res = this.res;
    if (!res) return;
    if (res.bloom && res.bloomSize[0] === w && res.bloomSize[1] === h && res.bloomSize[2] === f) return;
    this.freeBloom();
    const make = (): [WebGLTexture, WebGLFramebuffer] => {
      const tex = gl.createTexture();
      gl.bindTexture(gl.TEXTURE_2D, tex);
      gl.texStorage2D(gl.TEXTURE_2D, 1, res.floatTargets ? gl.RGBA16F : gl.RGBA8, w, h);
      this.texParams(gl.LINEAR, gl.LINEAR);
      const fbo = gl.createFramebuffer();
      gl.bindFramebuffer(gl.FRAMEBUFFER, fbo);
      gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, tex, 0);
      return [tex, fbo];
    };
    const a = make();
    const b = make();
    gl.bindFramebuffer(gl.FRAMEBUFFER, null);
    res.bloom = [a[0], b[0]];
    res.fbos = [a[1], b[1]];
    res.bloomSize = [w, h, f];
  }

  private freeBloom(): void {
    const gl = this.gl;
    const res = this.res;
    if (!res) return;
    res.bloom?.forEach((t) => gl.deleteTexture(t));
    res.fbos?.forEach((f) => gl.deleteFramebuffer(f));
    res.bloom = null;
    res.fbos = null;
  }

  private setPanelUniforms(program: WebGLProgram, fc: FrameConstants): void {
    const gl = this.gl;
    const res = this.res;
    const creative = this.creative;
    if (!res || !creative) return;
    const u = (n: string) => this.loc(program, n);
    const h = fc.hinv;
    gl.uniform3f(u('uH0'), h[0], h[1], h[2]);
    gl.uniform3f(u('uH1'), h[3], h[4], h[5]);
    gl.uniform3f(u('uH2'), h[6], h[7], h[8]);
    gl.uniform4f(u('uFit'), fc.fit.su, fc.fit.u0, fc.fit.sv, fc.fit.v0);
    gl.uniform2f(u('uCSize'), creative.width, creative.height);
    gl.uniform1f(u('uLevels'), res.levels);
    gl.uniform1f(u('uLodBase'), res.lodBase);
    gl.uniform3f(u('uBg'), ...fc.background);
    const p = fc.panel;
    gl.uniform1f(u('uBias'), p.bias);
    gl.uniform1f(u('uSharpen'), p.sharpen);
    gl.uniform1f(u('uBright'), p.bright);
    gl.uniform1f(u('uGamma'), p.gamma);
    gl.uniform1f(u('uSat'), p.sat);
    gl.uniform3f(u('uGain'), ...p.gain);
    gl.uniform1f(u('uGlare'), p.glare);
    gl.uniform3fv(u('uEdges[0]'), fc.edges.flat());
    gl.uniform2f(u('uViewC'), fc.viewC[0], fc.viewC[1]);
    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(gl.TEXTURE_2D, res.creative);
    gl.uniform1i(u('uCreative'), 0);
  }

  /** Emission at 1/f then the separable blur, scissored to where the light can reach. */
  private renderBloom(fc: FrameConstants, variant: Variant, W: number, H: number): { uv: [number, number]; region: [number, number, number, number] } | null {
    const gl = this.gl;
    const res = this.res;
    const f = fc.bloomFactor;
    const bw = Math.ceil(W / f);
    const bh = Math.ceil(H / f);
    this.bloomTargets(bw, bh, f);
    if (!res?.bloom || !res.fbos) return null;
    const sigma = fc.bloomSigma / f;
    const need = Math.ceil(3 * sigma);
    const radius = BLUR_RADII.find((r) => r >= need) ?? BLUR_RADII[BLUR_RADII.length - 1];
    const [bx0, by0, bx1, by1] = fc.bbox;
    const m = radius + 2;
    const x0 = Math.max(0, Math.floor(bx0 / f) - m);
    const y0 = Math.max(0, Math.floor(by0 / f) - m);
    const x1 = Math.min(bw, Math.ceil(bx1 / f) + m);
    const y1 = Math.min(bh, Math.ceil(by1 / f) + m);
    gl.viewport(0, 0, bw, bh);
    for (const fbo of res.fbos) {
      gl.bindFramebuffer(gl.FRAMEBUFFER, fbo);
      gl.clearColor(0, 0, 0, 0);
      gl.clear(gl.COLOR_BUFFER_BIT);
    }
    const out = { uv: [1 / (f * bw), 1 / (f * bh)] as [number, number], region: [x0 * f, y0 * f, Math.min(W, x1 * f), Math.min(H, y1 * f)] as [number, number, number, number] };
    if (x1 <= x0 || y1 <= y0) return out;
    gl.enable(gl.SCISSOR_TEST);
    // Low-res rows are stored y-down (row j = photo rows [j·f, (j+1)·f)).
    gl.scissor(x0, y0, x1 - x0, y1 - y0);
    const ev: Variant = { ...variant, panel: true };
    const pe = this.program(`e:${variantDefines(ev).join(',')}`, () => emissionSource(ev));
    const pb = this.program(`b:${radius}`, () => blurSource(radius));
    if (pe && pb) {
      gl.useProgram(pe);
      this.setPanelUniforms(pe, fc);
      gl.uniform1f(this.loc(pe, 'uFactor'), f);
      gl.bindFramebuffer(gl.FRAMEBUFFER, res.fbos[0]);
      gl.drawArrays(gl.TRIANGLES, 0, 3);
      gl.useProgram(pb);
      gl.uniform1f(this.loc(pb, 'uSigma'), sigma);
      gl.uniform1i(this.loc(pb, 'uSrc'), 0);
      gl.activeTexture(gl.TEXTURE0);
      gl.bindFramebuffer(gl.FRAMEBUFFER, res.fbos[1]);
      gl.bindTexture(gl.TEXTURE_2D, res.bloom[0]);
      gl.uniform2i(this.loc(pb, 'uDir'), 1, 0);
      gl.drawArrays(gl.TRIANGLES, 0, 3);
      gl.bindFramebuffer(gl.FRAMEBUFFER, res.fbos[0]);
      gl.bindTexture(gl.TEXTURE_2D, res.bloom[1]);
      gl.uniform2i(this.loc(pb, 'uDir'), 0, 1);
      gl.drawArrays(gl.TRIANGLES, 0, 3);
    }
    gl.disable(gl.SCISSOR_TEST);
    return out;
  }

  render(params: PreviewParams): void {
    const t0 = performance.now();
    this.lastParams = params;
    const gl = this.gl;
    const res = this.res;
    if (this.disposed || this.lost || !res || !this.photo || !this.creative || gl.isContextLost()) return;
    const W = this.photo.width;
    const H = this.photo.height;
    const quadPx = quadToPixels(params.quad, W, H);
    const adj = params.adjustments;
    const needStats = (adj.auto_match && !adj.night) || adj.grain > 0;
    const stats = needStats ? this.stats.get(quadPx) : DEFAULT_STATS;
    const fc = frameConstants({ ...params, quadPx }, this.creative.width, this.creative.height, stats);
    const after = params.view !== 'before';
    gl.bindVertexArray(res.vao);
    gl.disable(gl.BLEND);
    gl.disable(gl.DEPTH_TEST);
    const variant: Variant = {
      sharpen: fc.panel.sharpen > 0,
      contain: fc.contain,
      glare: fc.panel.glare > 0,
      mask: this.maskImg !== null && res.mask !== null,
      grain: fc.panel.grain > 0,
      view: fc.viewC[0] > 0 || fc.viewC[1] > 0,
      bloom: after && fc.panel.bloom > 0 && fc.bloomSigma > 0,
    };
    const [bx0, by0, bx1, by1] = fc.bbox;

    const bloom = variant.bloom ? this.renderBloom(fc, variant, W, H) : null;
    const bloomOn = bloom !== null;
    const bloomUV: [number, number] = bloom ? bloom.uv : [0, 0];

    // The photo (as it is, or darkened at night) copied without decoding and encoding; where
    // the bloom reaches, the photo pass adds it; over the quad's bounding box, the panel pass.
    // (A blit to the default framebuffer is lost after a context restore in Chromium; a draw
    // is as cheap.)
    gl.bindFramebuffer(gl.FRAMEBUFFER, null);
    gl.viewport(0, 0, W, H);
    const night = after && params.adjustments.night != null;
    const copyTex = !after || fc.panel.photoGain.every((g) => g === 1) ? res.photoCopy : night ? this.nightCopy() : null;
    const copy = copyTex ? this.program('copy', () => COPY) : null;
    type Pass = { v: Variant; box: [number, number, number, number] | null };
    const passes: Pass[] = [];
    if (copy && copyTex) {
      gl.useProgram(copy);
      gl.activeTexture(gl.TEXTURE0);
      gl.bindTexture(gl.TEXTURE_2D, copyTex);
      gl.uniform1i(this.loc(copy, 'uSrc'), 0);
      gl.uniform1f(this.loc(copy, 'uHeight'), H);
      gl.drawArrays(gl.TRIANGLES, 0, 3);
      if (bloom) passes.push({ v: { bloom: true }, box: bloom.region });
    } else if (after) {
      passes.push({ v: { bloom: bloomOn }, box: null });
    }
    if (after) passes.push({ v: { ...variant, panel: true, bloom: bloomOn }, box: [bx0 - 1, by0 - 1, bx1 + 1, by1 + 1] });
    for (const { v, box } of passes) {
      const key = `c:${variantDefines(v).join(',')}`;
      const pc = this.program(key, () => compositeSource(v));
      if (!pc) return;
      gl.useProgram(pc);
      if (box) {
        const x0 = Math.max(0, box[0]);
        const y0 = Math.max(0, box[1]);
        const x1 = Math.min(W, box[2]);
        const y1 = Math.min(H, box[3]);
        if (x1 <= x0 || y1 <= y0) continue;
        gl.enable(gl.SCISSOR_TEST);
        gl.scissor(x0, H - y1, x1 - x0, y1 - y0);
      }
      if (v.panel) this.setPanelUniforms(pc, fc);
      const u = (n: string) => this.loc(pc, n);
      gl.activeTexture(gl.TEXTURE1);
      gl.bindTexture(gl.TEXTURE_2D, res.photo);
      gl.uniform1i(u('uPhoto'), 1);
      gl.activeTexture(gl.TEXTURE2);
      gl.bindTexture(gl.TEXTURE_2D, res.mask);
      gl.uniform1i(u('uMask'), 2);
      gl.activeTexture(gl.TEXTURE3);
      gl.bindTexture(gl.TEXTURE_2D, bloomOn ? res.bloom?.[0] ?? null : null);
      gl.uniform1i(u('uBloom'), 3);
      gl.uniform2f(u('uSize'), W, H);
      gl.uniform3fv(u('uPhotoGain'), after ? fc.panel.photoGain : [1, 1, 1]);
      gl.uniform1f(u('uBloomStrength'), bloomOn ? fc.panel.bloom : 0);
      gl.uniform2f(u('uBloomUV'), ...bloomUV);
      gl.uniform1f(u('uGrain'), fc.panel.grain);
      gl.drawArrays(gl.TRIANGLES, 0, 3);
      gl.disable(gl.SCISSOR_TEST);
    }
    gl.bindVertexArray(null);
    if (this.measure) {
      // gl.finish() does not wait in Chromium; a one-pixel read does.
      gl.finish();
      gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, this.probe);
    }
    this.lastFrameMs = performance.now() - t0;
  }

  readPixels(): ImageData {
    const gl = this.gl;
    const w = gl.drawingBufferWidth;
    const h = gl.drawingBufferHeight;
    const buf = new Uint8Array(w * h * 4);
    gl.bindFramebuffer(gl.FRAMEBUFFER, null);
    gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, buf);
    const out = new ImageData(w, h);
    const row = w * 4;
    for (let y = 0; y < h; y++) out.data.set(buf.subarray((h - 1 - y) * row, (h - y) * row), y * row);
    return out;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.stats.cancel();
    this.canvas.removeEventListener('webglcontextlost', this.onLost);
    this.canvas.removeEventListener('webglcontextrestored', this.onRestored);
    const gl = this.gl;
    const res = this.res;
    if (res && !gl.isContextLost()) {
      this.freeBloom();
      for (const t of [res.photo, res.creative, res.mask]) if (t) gl.deleteTexture(t);
      for (const t of [res.photoCopy, res.nightCopy]) if (t) gl.deleteTexture(t);
      gl.deleteVertexArray(res.vao);
      res.programs.forEach((p) => gl.deleteProgram(p));
    }
    this.res = null;
    this.photo = null;
    this.creative = null;
    this.maskImg = null;
  }
}
