import { useCallback, useEffect, useLayoutEffect, useRef, useState, type PointerEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { QuadEditor } from '@/components/quad-editor';
import { Button } from '@/components/ui/button';
import type { Quad } from '@/lib/quad';

import type { MaskPainter, MaskPoint } from '../lib/mask';
import { createPreviewRenderer, type PreviewParams, type PreviewRenderer } from '../lib/preview';

export type Tool = 'corners' | 'brush' | 'eraser';

export type PreviewStageProps = {
  photoUrl: string;
  /** The photo at full resolution (the corner loupe). */
  photoFullUrl?: string;
  /** The photo's pixel size (aspect ratio of the stage). */
  photoWidth: number;
  photoHeight: number;
  creativeUrl: string;
  /** Read on every animation frame; change it and call `requestFrame` (the parent does it on each change). */
  params: PreviewParams;
  quad: Quad;
  onQuadChange: (quad: Quad) => void;
  tool: Tool;
  brushSize: number;
  painter: MaskPainter;
  /** Bumped whenever the mask changes outside the stage (clear, load). */
  maskVersion: number;
  /** The sources are loaded (the mask canvas has the photo's size). */
  onReady?: () => void;
  /** A brush stroke ended. */
  onPaint?: () => void;
};

type Zoom = 'fit' | number;
const ZOOM_STEP = 1.5;
const ZOOM_MIN = 0.1;
const ZOOM_MAX = 8;

/** Whether the page was opened by the browser tests (`?e2e`): exposes the renderer on window. */
function e2eHook(): boolean {
  return typeof window !== 'undefined' && new URLSearchParams(window.location.search).has('e2e');
}

declare global {
  interface Window {
    __regardPreview?: { kind: string; readPixels: () => ImageData; width: number; height: number; render: () => void };
  }
}

function loadImage(url: string): Promise<HTMLImageElement> {
  return new Promise((resolve, reject) => {
    const image = new Image();
    image.decoding = 'async';
    image.onload = () => resolve(image);
    image.onerror = () => reject(new Error(`cannot load ${url}`));
    image.src = url;
  });
}

/**
 * The live preview (preview module, WebGL2 or its 2-D fallback) with the corner handles and the
 * mask brush over it. Zoom: fit, 100 %, in and out (the stage's CSS size, so handles and brush
 * keep working), pan by dragging the background or with the scrollbars. Rendering is coalesced to
 * one frame per animation frame; the parameters are read from a ref, so moving a slider or a
 * corner costs one uniform update, not a re-upload.
 */
export function PreviewStage(props: PreviewStageProps) {
  const { photoUrl, photoFullUrl, photoWidth, photoHeight, creativeUrl, params, quad, onQuadChange, tool, brushSize, painter, maskVersion, onReady, onPaint } = props;
  const onReadyRef = useRef(onReady);
  useEffect(() => {
    onReadyRef.current = onReady;
  });
  const { t } = useTranslation();
  const viewportRef = useRef<HTMLDivElement>(null);
  const stageRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const overlayHostRef = useRef<HTMLDivElement>(null);
  const rendererRef = useRef<PreviewRenderer | null>(null);
  const paramsRef = useRef(params);
  const frameRef = useRef<number | null>(null);
  const readyRef = useRef(false);
  const [kind, setKind] = useState<'webgl2' | 'canvas2d' | null>(null);
  const sourceKey = `${photoUrl}\n${creativeUrl}`;
  const [loaded, setLoaded] = useState<{ key: string; state: 'ready' | 'error' } | null>(null);
  const loadState = loaded?.key === sourceKey ? loaded.state : 'loading';
  const [zoom, setZoom] = useState<Zoom>('fit');
  const [fitScale, setFitScale] = useState(1);
  const [canvasSize, setCanvasSize] = useState({ width: photoWidth, height: photoHeight });

  const draw = useCallback(() => {
    frameRef.current = null;
    const renderer = rendererRef.current;
    if (!renderer || !readyRef.current) return;
    renderer.render(paramsRef.current);
  }, []);

  const requestFrame = useCallback(() => {
    if (frameRef.current !== null) return;
    frameRef.current = requestAnimationFrame(draw);
  }, [draw]);

  // Every change of the parameters: one frame, at the next animation frame.
  useLayoutEffect(() => {
    paramsRef.current = params;
    requestFrame();
  }, [params, requestFrame]);

  // The renderer lives as long as the canvas.
  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    const e2e = e2eHook();
    let renderer: PreviewRenderer;
    try {
      renderer = createPreviewRenderer(canvas, { preserveDrawingBuffer: e2e });
    } catch (error) {
      // No renderer: the sources effect reports the failure.
      console.error(error);
      return;
    }
    rendererRef.current = renderer;
    setKind(renderer.kind);
    if (e2e) {
      window.__regardPreview = {
        kind: renderer.kind,
        readPixels: () => {
          renderer.render(paramsRef.current);
          return renderer.readPixels();
        },
        get width() {
          return canvas.width;
        },
        get height() {
          return canvas.height;
        },
        render: () => renderer.render(paramsRef.current),
      };
    }
    return () => {
      if (frameRef.current !== null) cancelAnimationFrame(frameRef.current);
      frameRef.current = null;
      readyRef.current = false;
      renderer.dispose();
      rendererRef.current = null;
      if (e2e) delete window.__regardPreview;
    };
  }, []);

  // Sources: the photo's preview variant and the creative, uploaded once per pair.
  useEffect(() => {
    let cancelled = false;
    readyRef.current = false;
    Promise.all([loadImage(photoUrl), loadImage(creativeUrl)])
      .then(([photo, creative]) => {
        const renderer = rendererRef.current;
        if (cancelled) return;
        if (!renderer) throw new Error('preview: no renderer');
        painter.resize(photo.naturalWidth, photo.naturalHeight);
        renderer.setSources({ photo, creative, mask: painter.painted ? painter.mask : null });
        setCanvasSize({ width: photo.naturalWidth, height: photo.naturalHeight });
        readyRef.current = true;
        setLoaded({ key: sourceKey, state: 'ready' });
        requestFrame();
        onReadyRef.current?.();
      })
      .catch((error: unknown) => {
        if (cancelled) return;
        console.error(error);
        setLoaded({ key: sourceKey, state: 'error' });
      });
    return () => {
      cancelled = true;
    };
  }, [photoUrl, creativeUrl, sourceKey, painter, requestFrame]);

  // The mask changed (cleared, loaded): upload it again.
  useEffect(() => {
    const renderer = rendererRef.current;
    if (!renderer || !readyRef.current) return;
    renderer.setMask(painter.painted ? painter.mask : null);
    requestFrame();
  }, [maskVersion, painter, requestFrame, loadState]);

  // The painted strokes, shown over the preview.
  useEffect(() => {
    const host = overlayHostRef.current;
    if (!host) return;
    host.appendChild(painter.overlay);
    return () => {
      painter.overlay.remove();
    };
  }, [painter]);

  // Fit: the whole photo inside the viewport (its width, and at most 70 % of the window's height).
  useEffect(() => {
    const viewport = viewportRef.current;
    if (!viewport) return;
    const measure = () => {
      const width = viewport.clientWidth;
      const height = Math.max(200, window.innerHeight * 0.7);
      if (width <= 0) return;
      setFitScale(Math.min(width / canvasSize.width, height / canvasSize.height));
    };
    measure();
    window.addEventListener('resize', measure);
    if (typeof ResizeObserver === 'undefined') return () => window.removeEventListener('resize', measure);
    const observer = new ResizeObserver(measure);
    observer.observe(viewport);
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', measure);
    };
  }, [canvasSize]);

  // The canvas's pixel size is the renderer's business; its displayed aspect is the photo's.
  useLayoutEffect(() => {
    const canvas = canvasRef.current;
    if (canvas) canvas.style.aspectRatio = `${photoWidth} / ${photoHeight}`;
  }, [photoWidth, photoHeight]);

  const scale = zoom === 'fit' ? fitScale : zoom;
  useLayoutEffect(() => {
    const stage = stageRef.current;
    if (!stage) return;
    stage.style.width = `${Math.round(canvasSize.width * scale)}px`;
  }, [scale, canvasSize]);

  const zoomBy = (factor: number) => setZoom(Math.min(ZOOM_MAX, Math.max(ZOOM_MIN, scale * factor)));

  // ---------- Pointer: paint the mask, or pan the view ----------
  const gesture = useRef<{ kind: 'paint' | 'pan'; last: MaskPoint; scroll: MaskPoint; client: MaskPoint; id: number } | null>(null);

  const photoPoint = (event: PointerEvent): MaskPoint | null => {
    const frame = stageRef.current?.querySelector('.quad-editor__frame');
    const rect = frame?.getBoundingClientRect();
    if (!rect || rect.width <= 0 || rect.height <= 0) return null;
    return { x: (event.clientX - rect.left) / rect.width, y: (event.clientY - rect.top) / rect.height };
  };

  const onPointerDown = (event: PointerEvent<HTMLDivElement>) => {
    if (event.button !== 0 || (event.target as Element).closest('.quad-editor__handle, .sim-zoom')) return;
    const point = photoPoint(event);
    const viewport = viewportRef.current;
    if (!point || !viewport) return;
    const painting = tool !== 'corners';
    event.preventDefault();
    event.currentTarget.setPointerCapture?.(event.pointerId);
    gesture.current = {
      kind: painting ? 'paint' : 'pan',
      last: point,
      scroll: { x: viewport.scrollLeft, y: viewport.scrollTop },
      client: { x: event.clientX, y: event.clientY },
      id: event.pointerId,
    };
    if (painting) paint(point, point);
  };

  const paint = (from: MaskPoint, to: MaskPoint) => {
    painter.stroke(from, to, brushSize, tool === 'eraser');
    const renderer = rendererRef.current;
    if (renderer && readyRef.current) renderer.setMask(painter.painted ? painter.mask : null);
    requestFrame();
  };

  const onPointerMove = (event: PointerEvent<HTMLDivElement>) => {
    const current = gesture.current;
    if (!current || current.id !== event.pointerId) return;
    if (current.kind === 'paint') {
      const point = photoPoint(event);
      if (!point) return;
      paint(current.last, point);
      current.last = point;
      return;
    }
    const viewport = viewportRef.current;
    if (!viewport) return;
    viewport.scrollLeft = current.scroll.x - (event.clientX - current.client.x);
    viewport.scrollTop = current.scroll.y - (event.clientY - current.client.y);
  };

  const onPointerUp = (event: PointerEvent<HTMLDivElement>) => {
    if (gesture.current?.id !== event.pointerId) return;
    const painted = gesture.current.kind === 'paint';
    gesture.current = null;
    if (painted) onPaint?.();
    event.currentTarget.releasePointerCapture?.(event.pointerId);
  };

  const percent = Math.round(scale * 100);

  return (
    <div className="sim-preview" data-testid="sim-preview" data-tool={tool} data-state={loadState}>
      <div className="sim-preview__toolbar" role="toolbar" aria-label={t('simulation.view.zoom')}>
        <Button variant="secondary" size="sm" onClick={() => zoomBy(1 / ZOOM_STEP)} aria-label={t('simulation.view.zoomOut')}>
          <span aria-hidden="true">−</span>
        </Button>
        <span className="sim-preview__zoom" aria-live="polite" data-testid="zoom-value">
          {t('simulation.view.percent', { value: percent })}
        </span>
        <Button variant="secondary" size="sm" onClick={() => zoomBy(ZOOM_STEP)} aria-label={t('simulation.view.zoomIn')}>
          <span aria-hidden="true">+</span>
        </Button>
        <Button variant="secondary" size="sm" aria-pressed={zoom === 'fit'} onClick={() => setZoom('fit')}>
          {t('simulation.view.fit')}
        </Button>
        <Button variant="secondary" size="sm" aria-pressed={zoom === 1} onClick={() => setZoom(1)}>
          {t('simulation.view.actualSize')}
        </Button>
        {kind ? (
          <span className="sim-preview__engine" title={t(`simulation.view.engineHelp.${kind}`)} data-testid="preview-engine">
            {t(`simulation.view.engine.${kind}`)}
          </span>
        ) : null}
      </div>
      <div
        ref={viewportRef}
        className="sim-preview__viewport"
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerCancel={onPointerUp}
      >
        <div ref={stageRef} className="sim-stage">
          <QuadEditor
            src={photoUrl}
            loupeSrc={photoFullUrl}
            width={photoWidth}
            height={photoHeight}
            quad={quad}
            onChange={onQuadChange}
            handlesHidden={tool !== 'corners' || params.view === 'before'}
          >
            <canvas
              ref={canvasRef}
              className="sim-stage__canvas"
              role="img"
              aria-label={t(params.view === 'before' ? 'simulation.view.beforeAlt' : 'simulation.view.afterAlt')}
              data-testid="preview-canvas"
            />
            <div ref={overlayHostRef} className="sim-stage__mask" />
          </QuadEditor>
          {loadState === 'loading' ? <p className="sim-stage__status">{t('simulation.view.loading')}</p> : null}
          {loadState === 'error' ? (
            <p className="sim-stage__status" role="alert">
              {t('simulation.view.error')}
            </p>
          ) : null}
        </div>
      </div>
    </div>
  );
}
