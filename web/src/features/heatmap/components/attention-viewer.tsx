import { useEffect, useId, useLayoutEffect, useRef, useState, type KeyboardEvent, type PointerEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/button';
import { cn } from '@/lib/cn';

import type { Aoi, AoiPoint, HeatmapResult, Hotspot, Rect } from '../api/heatmaps';
import { rectFromPoints } from '../lib/attention';
import { clickCorner, closePolygon, removeCorner, type PolygonStep } from '../lib/polygon';
import { FIT, MAX_ZOOM, MIN_ZOOM, pan, STEP, zoomAt, zoomCentre, type Zoom } from '../lib/zoom';
import type { DrawTool } from '../lib/use-aoi-drawing';
import { hasGlance, MODES, MOMENTS, shownMap, useViewState, type Moment, type ViewMode, type ViewState } from '../lib/view-state';
import { useOpacityStyle, usePointStyle, useRectStyle } from '../lib/use-rect-style';

/** A drawn rectangle smaller than this (fraction of each side) is taken for a click and dropped. */
const MIN_SIDE = 0.01;

/**
 * The map switch (first glance, exploration: only when the results have both),
 * the view switch (original, heatmap, fog) and the opacity slider.
 */
export function ViewControls({ view, labelledBy, glance = false }: { view: ViewState; labelledBy?: string; glance?: boolean }) {
  const { t } = useTranslation();
  const ids = { group: useId(), opacity: useId() };
  const { mode, opacity } = view;
  return (
    <div className="hm-viewer__controls" role="group" aria-labelledby={labelledBy}>
      {glance ? (
        <fieldset className="hm-segmented hm-segmented--moment" data-testid="moment-switch">
          <legend className="visually-hidden">{t('heatmap.viewer.moment')}</legend>
          {MOMENTS.map((value) => (
            <label key={value} className={cn('hm-segmented__option', view.moment === value && 'hm-segmented__option--active')}>
              <input
                type="radio"
                className="visually-hidden"
                name={`${ids.group}-moment`}
                value={value}
                checked={view.moment === value}
                onChange={() => view.setMoment(value)}
                data-testid={`moment-${value}`}
              />
              {t(`heatmap.viewer.moments.${value}`)}
            </label>
          ))}
        </fieldset>
      ) : null}
      <fieldset className="hm-segmented">
        <legend className="visually-hidden">{t('heatmap.viewer.view')}</legend>
        {MODES.map((value) => (
          <label key={value} className={cn('hm-segmented__option', mode === value && 'hm-segmented__option--active')}>
            <input
              type="radio"
              className="visually-hidden"
              name={`${ids.group}-mode`}
              value={value}
              checked={mode === value}
              onChange={() => view.setMode(value)}
            />
            {t(`heatmap.viewer.views.${value}`)}
          </label>
        ))}
      </fieldset>
      <div className="hm-opacity">
        <label htmlFor={ids.opacity} className="hm-opacity__label">
          {t('heatmap.viewer.opacity')}
        </label>
        <input
          id={ids.opacity}
          type="range"
          className="hm-opacity__input"
          min={0}
          max={100}
          step={5}
          value={opacity}
          disabled={mode === 'original'}
          aria-valuetext={t('heatmap.viewer.opacityValue', { value: opacity })}
          onChange={(event) => view.setOpacity(Number(event.target.value))}
          data-testid="opacity-slider"
        />
        <output htmlFor={ids.opacity} className="hm-opacity__value">
          {t('heatmap.viewer.opacityValue', { value: opacity })}
        </output>
      </div>
    </div>
  );
}

export type AttentionStageProps = {
  name: string;
  /** The source image at preview size (the overlay and fog are made at that size). */
  src: string;
  width: number;
  height: number;
  result: HeatmapResult;
  mode: ViewMode;
  /** Which map: the first glance (when the result has one) or the exploration. */
  moment?: Moment;
  /** Opacity of the overlay or fog, in %. */
  opacity: number;
  /** The automatic area of interest (a simulation's panel), outlined dashed. */
  panel?: AoiPoint[] | null;
  /** Saved areas, outlined and numbered in their order. */
  aois?: Aoi[];
  /** Numbered markers on the hotspots' peaks, in predicted viewing order. */
  markers?: boolean;
  /** Drawing: called with each rectangle drawn with the pointer (none when absent). */
  onDraw?: (rect: Rect) => void;
  /** What the pointer draws: rectangles (drag) or polygons (a click per corner). */
  tool?: DrawTool;
  /** Drawing: called with each polygon closed (none when absent). */
  onDrawPolygon?: (points: AoiPoint[]) => void;
  /** A rectangle being saved, shown dashed until it arrives in `aois`. */
  pending?: Rect | null;
  describedBy?: string;
};

/**
 * The image with the colour overlay (or the fog view) stacked on top, whose
 * CSS opacity follows the slider (the server's layers are linear in opacity,
 * so this is exactly the blend at that opacity), the areas of interest, the
 * hotspot markers, and rectangle drawing with the pointer.
 */
export function AttentionStage(props: AttentionStageProps) {
  const { name, src, width, height, result, mode, moment = 'exploration', opacity, panel, aois = [], markers, onDraw, pending, describedBy } = props;
  const { tool = 'rect', onDrawPolygon } = props;
  const { t } = useTranslation();
  const [draft, setDraft] = useState<Rect | null>(null);
  // The polygon being drawn: its corners, and where the pointer is (the next edge follows it).
  const [corners, setCorners] = useState<AoiPoint[]>([]);
  const [hover, setHover] = useState<AoiPoint | null>(null);
  const polygonMode = tool === 'polygon' && Boolean(onDrawPolygon);
  const [drawnTool, setDrawnTool] = useState(tool);
  if (drawnTool !== tool) {
    // Another tool: the unfinished polygon is dropped (state adjusted during render).
    setDrawnTool(tool);
    setCorners([]);
    setHover(null);
  }
  const applyStep = (step: PolygonStep) => {
    if (step.kind === 'closed') {
      setCorners([]);
      setHover(null);
      onDrawPolygon?.(step.points);
    } else {
      setCorners(step.points);
    }
  };
  const frameRef = useRef<HTMLDivElement>(null);
  const stageRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLDivElement>(null);
  const layerRef = useRef<HTMLImageElement>(null);
  const start = useRef<{ x: number; y: number } | null>(null);
  // Zoom and pan (lib/zoom.ts): a drag pans instead of drawing with the middle button, with the
  // space bar held, or when there is nothing to draw; two fingers pinch.
  const [zoom, setZoom] = useState<Zoom>(FIT);
  const panning = useRef<{ x: number; y: number; zoom: Zoom } | null>(null);
  const space = useRef(false);
  const touches = useRef(new Map<number, { x: number; y: number }>());
  const pinch = useRef<{ distance: number; mid: { x: number; y: number }; zoom: Zoom } | null>(null);

  const shown = shownMap(result, moment);
  // Keyed like the layer's element: a new element (another view or map) gets the opacity too.
  useOpacityStyle(layerRef, opacity / 100, `${shown.moment}-${mode}`);
  useLayoutEffect(() => {
    // The stage never grows taller than the viewport allows (CSS reads the image's aspect ratio).
    frameRef.current?.style.setProperty('--aspect', String(width / Math.max(1, height)));
  }, [width, height]);
  useLayoutEffect(() => {
    canvasRef.current?.style.setProperty('transform', `translate(${zoom.tx}px, ${zoom.ty}px) scale(${zoom.z})`);
    // Markers and labels keep their size on screen (CSS divides by the zoom).
    stageRef.current?.style.setProperty('--zoom', String(zoom.z));
  }, [zoom]);

  const frame = () => {
    const box = stageRef.current?.getBoundingClientRect();
    return box && box.width > 0 && box.height > 0 ? box : null;
  };
  const zoomBy = (factor: number, at?: { clientX: number; clientY: number }) => {
    const box = frame();
    if (!box) return;
    setZoom((current) =>
      at ? zoomAt(current, factor, { x: at.clientX - box.left, y: at.clientY - box.top }, box) : zoomCentre(current, factor, box),
    );
  };
  // Ctrl + wheel (and a trackpad's pinch, which browsers send as one) zooms at the pointer; the
  // plain wheel still scrolls the page. A native listener, so that the page's zoom is prevented.
  useEffect(() => {
    const stage = stageRef.current;
    if (!stage) return;
    const onWheel = (event: WheelEvent) => {
      if (!event.ctrlKey && !event.metaKey) return;
      event.preventDefault();
      const box = stage.getBoundingClientRect();
      const factor = Math.min(2, Math.max(0.5, Math.pow(STEP, -event.deltaY / 100)));
      setZoom((current) => zoomAt(current, factor, { x: event.clientX - box.left, y: event.clientY - box.top }, box));
    };
    stage.addEventListener('wheel', onWheel, { passive: false });
    return () => stage.removeEventListener('wheel', onWheel);
  }, []);

  /** The pointer's place on the image (0..1), whatever the zoom (the canvas's box is transformed). */
  const pointFrom = (event: PointerEvent) => {
    const box = canvasRef.current?.getBoundingClientRect();
    if (!box || box.width === 0 || box.height === 0) return null;
    return { x: (event.clientX - box.left) / box.width, y: (event.clientY - box.top) / box.height };
  };
  /** Starts a pinch (two fingers) or a pan, if this pointer begins one; true when it does. */
  const startGesture = (event: PointerEvent<HTMLDivElement>) => {
    if (event.pointerType === 'touch') {
      touches.current.set(event.pointerId, { x: event.clientX, y: event.clientY });
      if (touches.current.size === 2) {
        const [a, b] = [...touches.current.values()];
        start.current = null;
        setDraft(null);
        pinch.current = { distance: Math.hypot(a.x - b.x, a.y - b.y), mid: { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 }, zoom };
        return true;
      }
    }
    const drawing = Boolean(onDraw) || polygonMode;
    const wantsPan = zoom.z > 1 && (event.button === 1 || (event.button === 0 && (space.current || !drawing)));
    if (!wantsPan) return false;
    event.preventDefault();
    event.currentTarget.setPointerCapture?.(event.pointerId);
    panning.current = { x: event.clientX, y: event.clientY, zoom };
    return true;
  };
  /** Moves a pinch or a pan on; true when one is under way. */
  const moveGesture = (event: PointerEvent<HTMLDivElement>) => {
    if (touches.current.has(event.pointerId)) touches.current.set(event.pointerId, { x: event.clientX, y: event.clientY });
    const box = frame();
    if (pinch.current && touches.current.size === 2 && box) {
      const [a, b] = [...touches.current.values()];
      const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
      const { distance, zoom: from } = pinch.current;
      const scaled = zoomAt(from, Math.hypot(a.x - b.x, a.y - b.y) / Math.max(1, distance), { x: pinch.current.mid.x - box.left, y: pinch.current.mid.y - box.top }, box);
      setZoom(pan(scaled, mid.x - pinch.current.mid.x, mid.y - pinch.current.mid.y, box));
      return true;
    }
    if (panning.current && box) {
      const { x, y, zoom: from } = panning.current;
      setZoom(pan(from, event.clientX - x, event.clientY - y, box));
      return true;
    }
    return Boolean(pinch.current);
  };
  /** Ends a pinch or a pan; true when one ended. */
  const endGesture = (event: PointerEvent<HTMLDivElement>) => {
    touches.current.delete(event.pointerId);
    if (pinch.current) {
      if (touches.current.size === 0) pinch.current = null;
      return true;
    }
    if (panning.current) {
      panning.current = null;
      event.currentTarget.releasePointerCapture?.(event.pointerId);
      return true;
    }
    return false;
  };
  const onPointerDown = (event: PointerEvent<HTMLDivElement>) => {
    event.currentTarget.focus({ preventScroll: true });
    if (startGesture(event)) return;
    if (polygonMode) {
      const point = event.button === 0 ? pointFrom(event) : null;
      if (!point) return;
      event.preventDefault();
      event.currentTarget.focus();
      applyStep(clickCorner(corners, point));
      return;
    }
    if (!onDraw || event.button !== 0) return;
    const point = pointFrom(event);
    if (!point) return;
    event.preventDefault();
    event.currentTarget.setPointerCapture?.(event.pointerId);
    start.current = point;
    setDraft(rectFromPoints(point, point));
  };
  const onPointerMove = (event: PointerEvent<HTMLDivElement>) => {
    if (moveGesture(event)) return;
    if (polygonMode) {
      if (corners.length > 0) setHover(pointFrom(event));
      return;
    }
    const point = start.current && pointFrom(event);
    if (start.current && point) setDraft(rectFromPoints(start.current, point));
  };
  const onPointerUp = (event: PointerEvent<HTMLDivElement>) => {
    if (endGesture(event) || polygonMode) return;
    const origin = start.current;
    const point = origin && pointFrom(event);
    start.current = null;
    setDraft(null);
    event.currentTarget.releasePointerCapture?.(event.pointerId);
    if (!origin || !point || !onDraw) return;
    const rect = rectFromPoints(origin, point);
    if (rect.width < MIN_SIDE || rect.height < MIN_SIDE) return;
    onDraw(rect);
  };
  const onPointerCancel = (event: PointerEvent<HTMLDivElement>) => {
    endGesture(event);
    start.current = null;
    setDraft(null);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const box = frame();
    const step = box ? Math.min(box.width, box.height) / 10 : 0;
    const zoomKeys: Record<string, () => void> = {
      '+': () => zoomBy(STEP),
      '=': () => zoomBy(STEP),
      '-': () => zoomBy(1 / STEP),
      '0': () => setZoom(FIT),
      ArrowLeft: () => box && setZoom((z) => pan(z, step, 0, box)),
      ArrowRight: () => box && setZoom((z) => pan(z, -step, 0, box)),
      ArrowUp: () => box && setZoom((z) => pan(z, 0, step, box)),
      ArrowDown: () => box && setZoom((z) => pan(z, 0, -step, box)),
    };
    if (event.key === ' ') {
      space.current = true;
      event.preventDefault();
      return;
    }
    if (event.key in zoomKeys && !event.ctrlKey && !event.metaKey && !event.altKey) {
      // Arrows move the image only when it is zoomed; otherwise they scroll the page.
      if (event.key.startsWith('Arrow') && zoom.z === 1) return;
      zoomKeys[event.key]();
      event.preventDefault();
      return;
    }
    if (!polygonMode || corners.length === 0) return;
    if (event.key === 'Enter') applyStep(closePolygon(corners));
    else if (event.key === 'Backspace') setCorners(removeCorner(corners));
    else if (event.key === 'Escape') {
      setCorners([]);
      setHover(null);
    } else return;
    event.preventDefault();
    event.stopPropagation();
  };

  const layer =
    mode === 'heatmap'
      ? { src: shown.overlay, alt: t('heatmap.viewer.overlayAlt', { name }), testId: 'heatmap-overlay' }
      : mode === 'fog'
        ? { src: shown.fog, alt: t('heatmap.viewer.fogAlt', { name }), testId: 'heatmap-fog' }
        : null;
  const outline = (points: AoiPoint[]) => points.map((p) => `${p.x},${p.y}`).join(' ');

  // The zoom bar sits under the image, not over it: over a small image (a landscape banner side by
  // side with others, or on a phone) it would hide a good part of what is being compared.
  return (
    <div ref={frameRef} className="hm-stage-frame">
      <div
        ref={stageRef}
        className={cn('hm-stage', (onDraw || polygonMode) && 'hm-stage--draw')}
        aria-describedby={describedBy}
        tabIndex={0}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerCancel={onPointerCancel}
        onDoubleClick={polygonMode ? () => applyStep(closePolygon(corners)) : undefined}
        onKeyDown={onKeyDown}
        onKeyUp={(event) => {
          if (event.key === ' ') space.current = false;
        }}
        onBlur={() => {
          space.current = false;
        }}
        data-testid="attention-stage"
        data-mode={mode}
        data-moment={shown.moment}
        data-zoom={zoom.z}
      >
        <div ref={canvasRef} className="hm-stage__canvas">
          <img
            className="hm-stage__image"
            src={src}
            alt={t('heatmap.item.originalAlt', { name })}
            width={width}
            height={height}
            draggable={false}
            data-testid="original-image"
          />
          {layer ? (
            <img
              ref={layerRef}
              key={`${shown.moment}-${layer.testId}`}
              className="hm-stage__layer"
              src={layer.src}
              alt={layer.alt}
              width={width}
              height={height}
              draggable={false}
              data-testid={layer.testId}
            />
          ) : null}
          {(panel && panel.length >= 3) || aois.length > 0 || corners.length > 0 ? (
            <svg className="hm-aoi" viewBox="0 0 1 1" preserveAspectRatio="none" aria-hidden="true">
              {corners.length > 0 ? (
                <polyline
                  className="hm-aoi__draft"
                  points={outline(hover ? [...corners, hover] : corners)}
                  vectorEffect="non-scaling-stroke"
                  data-testid="polygon-draft"
                />
              ) : null}
              {panel && panel.length >= 3 ? (
                <polygon className="hm-aoi__panel" points={outline(panel)} vectorEffect="non-scaling-stroke" data-testid="aoi-outline" />
              ) : null}
              {aois.map((aoi) => (
                <polygon key={aoi.id} className="hm-aoi__area" points={outline(aoi.points)} vectorEffect="non-scaling-stroke" />
              ))}
            </svg>
          ) : null}
          {aois.map((aoi, index) => (
            <AreaLabel key={aoi.id} rect={aoi.rect} label={String(index + 1)} />
          ))}
          {markers
            ? shown.hotspots.map((hotspot) => <HotspotMarker key={`${shown.moment}-${hotspot.rank}`} hotspot={hotspot} />)
            : null}
          {corners.map((corner, index) => (
            <CornerDot key={index} point={corner} first={index === 0} />
          ))}
          {draft ? <AreaBox rect={draft} /> : pending ? <AreaBox rect={pending} /> : null}
        </div>
      </div>
      <ZoomBar zoom={zoom.z} onZoom={(factor) => zoomBy(factor)} onFit={() => setZoom(FIT)} />
    </div>
  );
}

/** Zoom buttons under the image's right corner, with the zoom level. */
function ZoomBar({ zoom, onZoom, onFit }: { zoom: number; onZoom: (factor: number) => void; onFit: () => void }) {
  const { t, i18n } = useTranslation();
  const level = new Intl.NumberFormat(i18n.language, { style: 'percent', maximumFractionDigits: 0 }).format(zoom);
  return (
    <div className="hm-zoom" role="group" aria-label={t('heatmap.viewer.zoom.label')} data-testid="zoom-bar">
      <button type="button" className="hm-zoom__button" aria-label={t('heatmap.viewer.zoom.out')} disabled={zoom <= MIN_ZOOM} onClick={() => onZoom(1 / STEP)} data-testid="zoom-out">
        −
      </button>
      <output className="hm-zoom__level" aria-live="polite" data-testid="zoom-level">
        {level}
      </output>
      <button type="button" className="hm-zoom__button" aria-label={t('heatmap.viewer.zoom.in')} disabled={zoom >= MAX_ZOOM} onClick={() => onZoom(STEP)} data-testid="zoom-in">
        +
      </button>
      <button type="button" className="hm-zoom__button hm-zoom__fit" disabled={zoom === 1} onClick={onFit} data-testid="zoom-fit">
        {t('heatmap.viewer.zoom.fit')}
      </button>
    </div>
  );
}

/** A corner of the polygon being drawn (the first one larger: a click on it closes the polygon). */
function CornerDot({ point, first }: { point: AoiPoint; first: boolean }) {
  const ref = useRef<HTMLSpanElement>(null);
  usePointStyle(ref, point.x, point.y);
  return <span ref={ref} className={cn('hm-corner', first && 'hm-corner--first')} aria-hidden="true" data-testid="polygon-corner" />;
}

/**
 * An area's number, at the top-left corner of its bounding box: a light square tag, where the
 * viewing order's numbers are dark discs (`HotspotMarker`), so that the two never read alike.
 */
function AreaLabel({ rect, label }: { rect: Rect; label: string }) {
  const ref = useRef<HTMLSpanElement>(null);
  usePointStyle(ref, rect.x, rect.y);
  return (
    <span ref={ref} className="hm-area__label" aria-hidden="true" data-testid="area-box">
      {label}
    </span>
  );
}

/** The rectangle being drawn (or saved). */
function AreaBox({ rect }: { rect: Rect }) {
  const ref = useRef<HTMLDivElement>(null);
  useRectStyle(ref, rect);
  return <div ref={ref} className="hm-area hm-area--draft" aria-hidden="true" data-testid="area-draft" />;
}

/** A hotspot's place in the viewing order, on its peak: a dark disc (areas have light square tags). */
function HotspotMarker({ hotspot }: { hotspot: Hotspot }) {
  const ref = useRef<HTMLSpanElement>(null);
  usePointStyle(ref, hotspot.x, hotspot.y);
  return (
    <span ref={ref} className="hm-marker" aria-hidden="true" data-testid="hotspot-marker">
      {hotspot.rank}
    </span>
  );
}

export type AttentionViewerProps = Omit<AttentionStageProps, 'mode' | 'moment' | 'opacity' | 'markers' | 'describedBy'> & {
  /** The view state, when the page shares it (the analysis text follows the map shown); else the viewer's own. */
  view?: ViewState;
  /** Shown beside the legend, under the image (the areas of interest). */
  below?: ReactNode;
  /** Actions next to "full screen", given what is shown (the export menu). */
  actions?: (view: ViewState, markers: boolean) => ReactNode;
  /** The id of the text that explains drawing (read with the stage). */
  hintId?: string;
};

/**
 * One result, large: the view controls, the image with its overlay, full
 * screen on demand, the markers of the viewing order (which match the
 * numbered lines of the analysis), and under it the colour legend and
 * whatever `below` brings.
 */
export function AttentionViewer({ below, hintId, actions, view: shared, ...stage }: AttentionViewerProps) {
  const { t } = useTranslation();
  const titleId = useId();
  const own = useViewState();
  const view = shared ?? own;
  const glance = hasGlance(stage.result);
  const [markers, setMarkers] = useState(true);
  const figureRef = useRef<HTMLElement>(null);
  const canFullscreen = typeof document !== 'undefined' && Boolean(document.fullscreenEnabled);

  const toggleFullscreen = () => {
    if (document.fullscreenElement) void document.exitFullscreen();
    else void figureRef.current?.requestFullscreen?.();
  };

  return (
    <div className="hm-viewer">
      <figure ref={figureRef} className="hm-figure">
        <figcaption className="hm-figure__caption">
          <h3 id={titleId} className="hm-section-title">
            {t('heatmap.item.attention')}
          </h3>
          <span className="hm-figure__actions">
            {actions?.(view, markers)}
            {canFullscreen ? (
              <Button variant="ghost" size="sm" onClick={toggleFullscreen} data-testid="fullscreen">
                {t('heatmap.viewer.fullscreen')}
              </Button>
            ) : null}
          </span>
        </figcaption>
        <ViewControls view={view} labelledBy={titleId} glance={glance} />
        <label className="hm-check">
          <input type="checkbox" checked={markers} onChange={(event) => setMarkers(event.target.checked)} />
          {t('heatmap.viewer.markers')}
        </label>
        <AttentionStage {...stage} mode={view.mode} moment={view.moment} opacity={view.opacity} markers={markers} describedBy={hintId} />
        {glance && view.moment === 'glance' ? <p className="field__hint" data-testid="glance-hint">{t('heatmap.viewer.glanceHint')}</p> : null}
        {view.mode === 'fog' ? <p className="field__hint">{t('heatmap.viewer.fogHint')}</p> : null}
      </figure>
      <div className="hm-viewer__below">
        <div className="hm-viewer__keys">
          <MarkerKey order={markers && shownMap(stage.result, view.moment).hotspots.length > 0} areas={(stage.aois?.length ?? 0) > 0} />
          <Legend />
        </div>
        {below}
      </div>
    </div>
  );
}

/**
 * What the numbers on the image are: the viewing order (dark discs) and the areas of interest
 * (light square tags), each drawn as on the image. Nothing when neither is shown.
 */
export function MarkerKey({ order, areas }: { order: boolean; areas: boolean }) {
  const { t } = useTranslation();
  const titleId = useId();
  if (!order && !areas) return null;
  return (
    <div className="hm-key" role="group" aria-labelledby={titleId} data-testid="marker-key">
      <p id={titleId} className="hm-legend__title">
        {t('heatmap.viewer.key.title')}
      </p>
      <ul className="hm-key__list">
        {order ? (
          <li className="hm-key__item" data-testid="marker-key-order">
            <span className="hm-marker hm-key__symbol" aria-hidden="true">
              1
            </span>
            {t('heatmap.viewer.key.order')}
          </li>
        ) : null}
        {areas ? (
          <li className="hm-key__item" data-testid="marker-key-areas">
            <span className="hm-area__label hm-key__symbol" aria-hidden="true">
              1
            </span>
            {t('heatmap.viewer.key.areas')}
          </li>
        ) : null}
      </ul>
    </div>
  );
}

/** The colour ramp of the overlay (blue → cyan → green → yellow → red) and what it means. */
export function Legend() {
  const { t } = useTranslation();
  const titleId = useId();
  return (
    <div className="hm-legend" role="group" aria-labelledby={titleId} data-testid="heatmap-legend">
      <p id={titleId} className="hm-legend__title">
        {t('heatmap.legend.title')}
      </p>
      <div className="hm-legend__scale">
        <span className="hm-legend__end">{t('heatmap.legend.low')}</span>
        <span className="hm-legend__ramp" aria-hidden="true" />
        <span className="hm-legend__end">{t('heatmap.legend.high')}</span>
      </div>
      <p className="hm-legend__text">{t('heatmap.legend.explanation')}</p>
    </div>
  );
}
