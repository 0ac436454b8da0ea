//! The panel quad editor shared by the location form and the simulation page: a photo (or
//! whatever the caller draws in its place), the quad as an SVG polygon and four corner handles
//! moved with a pointer or the arrow keys, with a loupe around the active corner.
import { useEffect, useId, useRef, useState, type KeyboardEvent, type PointerEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

import { cn } from '@/lib/cn';
import { CORNERS, loupePlacement, moveCorner, nudge, toNormalised, type Quad } from '@/lib/quad';

export type QuadEditorProps = {
  /** The photo: shown when there are no `children`, and always in the loupe. */
  src: string;
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

/**
 * The photo with the panel quad drawn over it (SVG polygon) and four handles:
 * drag them with a pointer (mouse, pen, touch), or focus one and use the arrow
 * keys (Shift for bigger steps). A loupe magnifies the photo around the active
 * handle for precise placement.
 */
export function QuadEditor({ src, width, height, quad, onChange, help, children, handlesHidden = false, className }: QuadEditorProps) {
  const { t } = useTranslation();
  const helpId = useId();
  const frameRef = useRef<HTMLDivElement>(null);
  const loupeRef = useRef<HTMLDivElement>(null);
  const [active, setActive] = useState<number | null>(null);
  // Whether the corner is moved by a finger (or a pen): the loupe then keeps clear of the hand.
  const [touch, setTouch] = useState(false);
  const [dragging, setDragging] = useState<number | null>(null);
  const [frame, setFrame] = useState({ width: 0, height: 0 });

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

  // Loupe: the photo enlarged, centred on the active corner (styles through the CSSOM: the CSP forbids style attributes).
  const loupeCorner = dragging ?? active;
  useEffect(() => {
    const loupe = loupeRef.current;
    if (!loupe || loupeCorner === null || frame.width === 0) return;
    const point = quad[loupeCorner];
    const px = point.x * frame.width;
    const py = point.y * frame.height;
    loupe.style.backgroundImage = `url("${src}")`;
    loupe.style.backgroundSize = `${frame.width * LOUPE_ZOOM}px ${frame.height * LOUPE_ZOOM}px`;
    loupe.style.backgroundPosition = `${LOUPE_SIZE / 2 - px * LOUPE_ZOOM}px ${LOUPE_SIZE / 2 - py * LOUPE_ZOOM}px`;
    // Beside the corner where the cursor or the finger does not hide it (lib/quad.ts).
    const place = loupePlacement({ x: px, y: py }, frame, LOUPE_SIZE, touch);
    loupe.style.left = `${place.x}px`;
    loupe.style.top = `${place.y}px`;
  }, [loupeCorner, quad, frame, src, touch]);

  const pointFromEvent = (event: PointerEvent) => {
    const rect = frameRef.current!.getBoundingClientRect();
    return toNormalised({ x: event.clientX - rect.left, y: event.clientY - rect.top }, rect);
  };

  const onPointerDown = (index: number) => (event: PointerEvent<HTMLButtonElement>) => {
    event.preventDefault();
    setTouch(event.pointerType === 'touch' || event.pointerType === 'pen');
    event.currentTarget.focus();
    event.currentTarget.setPointerCapture?.(event.pointerId);
    setDragging(index);
    setActive(index);
  };
  const onPointerMove = (index: number) => (event: PointerEvent<HTMLButtonElement>) => {
    if (dragging !== index) return;
    onChange(moveCorner(quad, index, pointFromEvent(event)));
  };
  const onPointerUp = (event: PointerEvent<HTMLButtonElement>) => {
    event.currentTarget.releasePointerCapture?.(event.pointerId);
    setDragging(null);
  };
  const onKeyDown = (index: number) => (event: KeyboardEvent<HTMLButtonElement>) => {
    const next = nudge(quad, index, event.key, event.shiftKey);
    if (!next) return;
    event.preventDefault();
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
            label={t(`quadEditor.corners.${CORNERS[index]}`)}
            describedBy={help ? helpId : undefined}
            x={point.x}
            y={point.y}
            active={loupeCorner === index}
            onPointerDown={onPointerDown(index)}
            onPointerMove={onPointerMove(index)}
            onPointerUp={onPointerUp}
            onKeyDown={onKeyDown(index)}
            onFocus={() => setActive(index)}
            onBlur={() => setActive((current) => (current === index ? null : current))}
          />
        ))}
        {loupeCorner !== null && !handlesHidden ? <div ref={loupeRef} className="quad-editor__loupe" aria-hidden="true" data-testid="quad-loupe" /> : null}
      </div>
    </div>
  );
}

type QuadHandleProps = {
  label: string;
  describedBy: string | undefined;
  x: number;
  y: number;
  active: boolean;
  onPointerDown: (event: PointerEvent<HTMLButtonElement>) => void;
  onPointerMove: (event: PointerEvent<HTMLButtonElement>) => void;
  onPointerUp: (event: PointerEvent<HTMLButtonElement>) => void;
  onKeyDown: (event: KeyboardEvent<HTMLButtonElement>) => void;
  onFocus: () => void;
  onBlur: () => void;
};

function QuadHandle({ label, describedBy, x, y, active, ...handlers }: QuadHandleProps) {
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
      data-x={x.toFixed(4)}
      data-y={y.toFixed(4)}
      onPointerCancel={handlers.onPointerUp}
      {...handlers}
    />
  );
}
