//! The panel quad editor shared by the location form and the simulation page: a photo (or
//! whatever the caller draws in its place), the quad as an SVG polygon and four corner handles
//! moved with a pointer or the arrow keys, with a loupe around the corner being moved.
import { useEffect, useId, useRef, useState, type KeyboardEvent, type PointerEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

import { cn } from '@/lib/cn';
import { CORNERS, loupePlacement, loupeView, moveCorner, nudge, toNormalised, type Corner, type Quad } from '@/lib/quad';

export type QuadEditorProps = {
  /** The photo: shown when there are no `children`, and in the loupe until `loupeSrc` has loaded. */
  src: string;
  /** The photo at full resolution, for a sharp loupe (loaded when the loupe first shows). */
  loupeSrc?: string;
  /** The photo's pixel size (for the aspect ratio and the SVG coordinates). */
  width: number;
  height: number;
  quad: Quad;
  onChange: (quad: Quad) => void;
  /** The help line above the photo (none when omitted). */
  help?: string;
  /** Drawn in place of the photo (e.g. a live preview canvas of the same aspect). */
  children?: ReactNode;
  /** Hides the handles and the outline (another tool uses the pointer). */
  handlesHidden?: boolean;
  className?: string;
};

const LOUPE_SIZE = 120;
const LOUPE_ZOOM = 3;

/** An image loaded once per address (null until it has loaded, or when it failed). */
function useLoadedImage(url: string | null): HTMLImageElement | null {
  const [loaded, setLoaded] = useState<{ url: string; image: HTMLImageElement } | null>(null);
  useEffect(() => {
    if (!url) return;
    let cancelled = false;
    const image = new Image();
    image.decoding = 'async';
    image.onload = () => {
      if (!cancelled) setLoaded({ url, image });
    };
    image.src = url;
    return () => {
      cancelled = true;
    };
  }, [url]);
  return loaded && loaded.url === url ? loaded.image : null;
}

/**
 * The photo with the panel quad drawn over it (SVG polygon) and four handles:
 * drag them with a pointer (mouse, pen, touch), or focus one and use the arrow
 * keys (Shift for bigger steps). A loupe magnifies the photo around the corner
 * being dragged (until the pointer is released) or focused from the keyboard.
 */
export function QuadEditor({ src, loupeSrc, width, height, quad, onChange, help, children, handlesHidden = false, className }: QuadEditorProps) {
  const { t } = useTranslation();
  const helpId = useId();
  const frameRef = useRef<HTMLDivElement>(null);
  const loupeRef = useRef<HTMLDivElement>(null);
  const loupeCanvasRef = useRef<HTMLCanvasElement>(null);
  // The corner focused from the keyboard (a pointer focuses its handle too, but its loupe ends on release).
  const [active, setActive] = useState<number | null>(null);
  const pointerFocus = useRef(false);
  // Whether the corner is moved by a finger (or a pen): the loupe then keeps clear of the hand.
  const [touch, setTouch] = useState(false);
  const [dragging, setDragging] = useState<number | null>(null);
  const [frame, setFrame] = useState({ width: 0, height: 0 });
  const loupeCorner = handlesHidden ? null : (dragging ?? active);

  // The full-resolution photo is fetched the first time the loupe shows; the displayed one meanwhile.
  const [wantFull, setWantFull] = useState(false);
  if (loupeCorner !== null && !wantFull) setWantFull(true);
  const shown = useLoadedImage(wantFull ? src : null);
  const full = useLoadedImage(wantFull && loupeSrc && loupeSrc !== src ? loupeSrc : null);
  const loupeImage = full ?? shown;

  // The displayed size of the photo, for the loupe.
  useEffect(() => {
    const element = frameRef.current;
    if (!element) return;
    const measure = () => setFrame({ width: element.clientWidth, height: element.clientHeight });
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  // Loupe: the photo enlarged around the corner, drawn at the screen's pixel density (styles
  // through the CSSOM: the CSP forbids style attributes).
  useEffect(() => {
    const loupe = loupeRef.current;
    if (!loupe || loupeCorner === null || frame.width === 0) return;
    const point = quad[loupeCorner];
    const px = point.x * frame.width;
    const py = point.y * frame.height;
    // Beside the corner where the cursor or the finger does not hide it (lib/quad.ts).
    const place = loupePlacement({ x: px, y: py }, frame, LOUPE_SIZE, touch);
    loupe.style.left = `${place.x}px`;
    loupe.style.top = `${place.y}px`;
    const canvas = loupeCanvasRef.current;
    if (!canvas || !loupeImage) return;
    const natural = { width: loupeImage.naturalWidth, height: loupeImage.naturalHeight };
    const view = loupeView(point, frame, natural, LOUPE_SIZE, LOUPE_ZOOM, window.devicePixelRatio || 1);
    if (canvas.width !== view.canvas) canvas.width = view.canvas;
    if (canvas.height !== view.canvas) canvas.height = view.canvas;
    const ctx = canvas.getContext('2d');
    if (!ctx) return;
    ctx.clearRect(0, 0, view.canvas, view.canvas);
    ctx.imageSmoothingEnabled = view.smoothing;
    ctx.imageSmoothingQuality = 'high';
    ctx.drawImage(loupeImage, view.sx, view.sy, view.sw, view.sh, 0, 0, view.canvas, view.canvas);
  }, [loupeCorner, quad, frame, touch, loupeImage]);

  const pointFromEvent = (event: PointerEvent) => {
    const rect = frameRef.current!.getBoundingClientRect();
    return toNormalised({ x: event.clientX - rect.left, y: event.clientY - rect.top }, rect);
  };

  const onPointerDown = (index: number) => (event: PointerEvent<HTMLButtonElement>) => {
    event.preventDefault();
    setTouch(event.pointerType === 'touch' || event.pointerType === 'pen');
    pointerFocus.current = true;
    event.currentTarget.focus();
    pointerFocus.current = false;
    event.currentTarget.setPointerCapture?.(event.pointerId);
    setDragging(index);
    setActive(null);
  };
  const onPointerMove = (index: number) => (event: PointerEvent<HTMLButtonElement>) => {
    if (dragging !== index) return;
    onChange(moveCorner(quad, index, pointFromEvent(event)));
  };
  // Released or cancelled (the pointer capture lost too): the loupe goes with the drag.
  const endDrag = (event: PointerEvent<HTMLButtonElement>) => {
    if (event.currentTarget.hasPointerCapture?.(event.pointerId)) event.currentTarget.releasePointerCapture(event.pointerId);
    setDragging(null);
  };
  const onKeyDown = (index: number) => (event: KeyboardEvent<HTMLButtonElement>) => {
    const next = nudge(quad, index, event.key, event.shiftKey);
    if (!next) return;
    event.preventDefault();
    setTouch(false);
    setActive(index);
    onChange(next);
  };

  const points = quad.map((p) => `${p.x * width},${p.y * height}`).join(' ');

  return (
    <div className={cn('quad-editor', className)}>
      {help ? (
        <p id={helpId} className="field__hint">
          {help}
        </p>
      ) : null}
      <div ref={frameRef} className="quad-editor__frame" data-testid="quad-editor">
        {children ?? <img className="quad-editor__photo" src={src} alt="" width={width} height={height} draggable={false} />}
        {handlesHidden ? null : (
        <svg
          className="quad-editor__overlay"
          viewBox={`0 0 ${width} ${height}`}
          preserveAspectRatio="none"
          aria-hidden="true"
        >
          <polygon className="quad-editor__polygon" points={points} vectorEffect="non-scaling-stroke" />
        </svg>
        )}
        {handlesHidden ? null : quad.map((point, index) => (
          <QuadHandle
            key={CORNERS[index]}
            corner={CORNERS[index]}
            label={t(`quadEditor.corners.${CORNERS[index]}`)}
            describedBy={help ? helpId : undefined}
            x={point.x}
            y={point.y}
            active={loupeCorner === index}
            onPointerDown={onPointerDown(index)}
            onPointerMove={onPointerMove(index)}
            onPointerUp={endDrag}
            onPointerCancel={endDrag}
            onLostPointerCapture={endDrag}
            onKeyDown={onKeyDown(index)}
            onFocus={() => {
              if (pointerFocus.current) return;
              setTouch(false);
              setActive(index);
            }}
            onBlur={() => setActive((current) => (current === index ? null : current))}
          />
        ))}
        {loupeCorner !== null ? (
          <div ref={loupeRef} className="quad-editor__loupe" aria-hidden="true" data-testid="quad-loupe">
            <canvas ref={loupeCanvasRef} className="quad-editor__loupe-canvas" />
          </div>
        ) : null}
      </div>
    </div>
  );
}

type QuadHandleProps = {
  corner: Corner;
  label: string;
  describedBy: string | undefined;
  x: number;
  y: number;
  active: boolean;
  onPointerDown: (event: PointerEvent<HTMLButtonElement>) => void;
  onPointerMove: (event: PointerEvent<HTMLButtonElement>) => void;
  onPointerUp: (event: PointerEvent<HTMLButtonElement>) => void;
  onPointerCancel: (event: PointerEvent<HTMLButtonElement>) => void;
  onLostPointerCapture: (event: PointerEvent<HTMLButtonElement>) => void;
  onKeyDown: (event: KeyboardEvent<HTMLButtonElement>) => void;
  onFocus: () => void;
  onBlur: () => void;
};

function QuadHandle({ corner, label, describedBy, x, y, active, ...handlers }: QuadHandleProps) {
  const ref = useRef<HTMLButtonElement>(null);
  // Position through the CSSOM (the CSP forbids style attributes).
  useEffect(() => {
    const button = ref.current;
    if (!button) return;
    button.style.left = `${x * 100}%`;
    button.style.top = `${y * 100}%`;
  }, [x, y]);
  return (
    <button
      ref={ref}
      type="button"
      className={cn('quad-editor__handle', active && 'quad-editor__handle--active')}
      aria-label={label}
      aria-describedby={describedBy}
      data-corner={corner}
      data-x={x.toFixed(4)}
      data-y={y.toFixed(4)}
      {...handlers}
    />
  );
}
