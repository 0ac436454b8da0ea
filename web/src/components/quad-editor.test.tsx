/** The quad editor's loupe: when it shows, when it goes, and what it draws from. */
import { act, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { defaultQuad } from '@/lib/quad';

import { QuadEditor } from './quad-editor';

/** Images that load when the test says so, at the size it gives. */
class FakeImage {
  static made: FakeImage[] = [];
  src = '';
  decoding = '';
  naturalWidth = 0;
  naturalHeight = 0;
  onload: (() => void) | null = null;
  constructor() {
    FakeImage.made.push(this);
  }
  load(width: number, height: number) {
    this.naturalWidth = width;
    this.naturalHeight = height;
    this.onload?.();
  }
}

const ctx = {
  clearRect: vi.fn(),
  drawImage: vi.fn(),
  imageSmoothingEnabled: true,
  imageSmoothingQuality: 'low',
};

beforeEach(() => {
  FakeImage.made = [];
  ctx.drawImage.mockClear();
  vi.stubGlobal('Image', FakeImage);
  vi.stubGlobal('devicePixelRatio', 2);
  vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue(ctx as unknown as CanvasRenderingContext2D);
  // jsdom lays nothing out: the photo is shown 800 × 400.
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockImplementation(function (this: HTMLElement) {
    return this.classList.contains('quad-editor__frame') ? 800 : 0;
  });
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockImplementation(function (this: HTMLElement) {
    return this.classList.contains('quad-editor__frame') ? 400 : 0;
  });
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

function setup() {
  render(<QuadEditor src="/photo/preview" loupeSrc="/photo/original" width={4000} height={2000} quad={defaultQuad()} onChange={() => {}} />);
  return screen.getByRole('button', { name: 'Coin haut gauche' });
}

describe('the quad editor loupe', () => {
  it('shows while a corner is dragged and goes when the pointer is released', () => {
    const corner = setup();
    expect(screen.queryByTestId('quad-loupe')).toBeNull();
    fireEvent.pointerDown(corner, { pointerId: 1, pointerType: 'mouse', button: 0 });
    expect(screen.getByTestId('quad-loupe')).toBeInTheDocument();
    fireEvent.pointerUp(corner, { pointerId: 1, pointerType: 'mouse' });
    // The handle keeps the focus (for the arrow keys), but the loupe is gone.
    expect(corner).toHaveFocus();
    expect(screen.queryByTestId('quad-loupe')).toBeNull();
  });

  it('goes when the drag is cancelled, and comes back for the arrow keys', () => {
    const corner = setup();
    fireEvent.pointerDown(corner, { pointerId: 1, pointerType: 'touch', button: 0 });
    expect(screen.getByTestId('quad-loupe')).toBeInTheDocument();
    fireEvent.pointerCancel(corner, { pointerId: 1, pointerType: 'touch' });
    expect(screen.queryByTestId('quad-loupe')).toBeNull();
    fireEvent.keyDown(corner, { key: 'ArrowRight' });
    expect(screen.getByTestId('quad-loupe')).toBeInTheDocument();
    fireEvent.blur(corner);
    expect(screen.queryByTestId('quad-loupe')).toBeNull();
  });

  it('shows for a corner focused from the keyboard', () => {
    const corner = setup();
    act(() => corner.focus());
    expect(screen.getByTestId('quad-loupe')).toBeInTheDocument();
  });

  it('draws the full-resolution photo at the device pixel ratio, the displayed one until it has loaded', () => {
    const corner = setup();
    fireEvent.pointerDown(corner, { pointerId: 1, pointerType: 'mouse', button: 0 });
    const canvas = screen.getByTestId('quad-loupe').querySelector('canvas')!;
    const preview = FakeImage.made.find((image) => image.src === '/photo/preview')!;
    const original = FakeImage.made.find((image) => image.src === '/photo/original')!;
    expect(original).toBeDefined();

    // The preview variant (800 px wide, as shown) first: 40 source pixels on 240 device pixels, crisp.
    act(() => preview.load(800, 400));
    expect(canvas.width).toBe(240);
    expect(canvas.height).toBe(240);
    expect(ctx.drawImage).toHaveBeenLastCalledWith(preview, 200 - 20, 100 - 20, 40, 40, 0, 0, 240, 240);
    expect(ctx.imageSmoothingEnabled).toBe(false);

    // Then the original (4000 px): 200 source pixels on 240 device pixels, resampled smoothly.
    act(() => original.load(4000, 2000));
    expect(ctx.drawImage).toHaveBeenLastCalledWith(original, 1000 - 100, 500 - 100, 200, 200, 0, 0, 240, 240);
    expect(ctx.imageSmoothingEnabled).toBe(true);
    expect(ctx.imageSmoothingQuality).toBe('high');
  });
});
