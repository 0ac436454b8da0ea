//! The occlusion mask painted over the photo (simulations.md: a grey image, 255 = something in
//! front of the panel). Two canvases are painted together: `mask`, opaque grey (black = nothing,
//! white = in front), which the preview reads and Save uploads as a PNG; and `overlay`, the same
//! strokes in a colour on transparency, shown over the preview so the painted area is visible.

export type MaskPoint = { x: number; y: number };

/** The overlay's colour (its opacity is set in CSS). */
const OVERLAY_COLOUR = '#ec4899';

export class MaskPainter {
  readonly mask: HTMLCanvasElement;
  readonly overlay: HTMLCanvasElement;
  /** Whether anything is painted (a cleared mask is sent as none). */
  painted = false;
  /** Changed since it was loaded or saved. */
  dirty = false;

  constructor() {
    this.mask = document.createElement('canvas');
    this.overlay = document.createElement('canvas');
    this.overlay.className = 'sim-mask-overlay';
    this.overlay.setAttribute('aria-hidden', 'true');
    this.overlay.dataset.testid = 'mask-overlay';
  }

  /** Sizes both canvases (clearing them) to the photo's preview size. */
  resize(width: number, height: number) {
    if (this.mask.width === width && this.mask.height === height) return;
    for (const canvas of [this.mask, this.overlay]) {
      canvas.width = Math.max(1, width);
      canvas.height = Math.max(1, height);
    }
    this.reset();
  }

  private contexts() {
    return [this.mask.getContext('2d'), this.overlay.getContext('2d')] as const;
  }

  private reset() {
    const [mask, overlay] = this.contexts();
    if (mask) {
      mask.globalCompositeOperation = 'source-over';
      mask.fillStyle = '#000000';
      mask.fillRect(0, 0, this.mask.width, this.mask.height);
    }
    overlay?.clearRect(0, 0, this.overlay.width, this.overlay.height);
    this.painted = false;
  }

  clear() {
    this.reset();
    this.dirty = true;
  }

  /**
   * One brush segment from `from` to `to` (normalised photo coordinates), `size` the brush
   * diameter as a fraction of the photo's width; `erase` paints "nothing in front".
   */
  stroke(from: MaskPoint, to: MaskPoint, size: number, erase: boolean) {
    const [mask, overlay] = this.contexts();
    const w = this.mask.width;
    const h = this.mask.height;
    const width = Math.max(1, size * w);
    for (const [ctx, colour, mode] of [
      [mask, erase ? '#000000' : '#ffffff', 'source-over'],
      [overlay, OVERLAY_COLOUR, erase ? 'destination-out' : 'source-over'],
    ] as const) {
      if (!ctx) continue;
      ctx.globalCompositeOperation = mode;
      ctx.strokeStyle = colour;
      ctx.fillStyle = colour;
      ctx.lineWidth = width;
      ctx.lineCap = 'round';
      ctx.lineJoin = 'round';
      ctx.beginPath();
      ctx.moveTo(from.x * w, from.y * h);
      ctx.lineTo(to.x * w, to.y * h);
      ctx.stroke();
      ctx.globalCompositeOperation = 'source-over';
    }
    if (!erase) this.painted = true;
    this.dirty = true;
  }

  /** Draws a saved mask (grey image, any size) stretched over the photo. */
  load(image: CanvasImageSource) {
    this.reset();
    const [mask, overlay] = this.contexts();
    if (!mask || !overlay) return;
    mask.drawImage(image, 0, 0, this.mask.width, this.mask.height);
    const grey = mask.getImageData(0, 0, this.mask.width, this.mask.height);
    const tint = overlay.createImageData(this.overlay.width, this.overlay.height);
    // The overlay colour with the mask value as its opacity.
    const [r, g, b] = [0xec, 0x48, 0x99];
    let painted = false;
    for (let i = 0; i < grey.data.length; i += 4) {
      const value = grey.data[i];
      if (value > 0) painted = true;
      tint.data[i] = r;
      tint.data[i + 1] = g;
      tint.data[i + 2] = b;
      tint.data[i + 3] = value;
    }
    overlay.putImageData(tint, 0, 0);
    this.painted = painted;
    this.dirty = false;
  }

  /** The mask as a PNG file to upload. */
  toFile(name = 'mask.png'): Promise<File> {
    return new Promise((resolve, reject) => {
      this.mask.toBlob((blob) => {
        if (blob) resolve(new File([blob], name, { type: 'image/png' }));
        else reject(new Error('mask: toBlob failed'));
      }, 'image/png');
    });
  }
}
