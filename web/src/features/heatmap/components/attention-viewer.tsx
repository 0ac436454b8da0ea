import { useId, useRef, useState, type PointerEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/button';
import { cn } from '@/lib/cn';

import type { AoiPoint, HeatmapResult, Rect } from '../api/heatmaps';
import { areaShare, rectFromPoints } from '../lib/attention';
import { formatPercent, formatRatio } from '../lib/format';
import { useOpacityStyle, useRectStyle } from '../lib/use-rect-style';

type Mode = 'original' | 'heatmap' | 'fog';
const MODES: Mode[] = ['original', 'heatmap', 'fog'];
/** Opacities (%) a result opens with. */
const DEFAULT_OPACITY = { heatmap: 60, fog: 85 };

/** A drawn rectangle smaller than this (fraction of each side) is taken for a click and dropped. */
const MIN_SIDE = 0.01;

type Area = { id: number; rect: Rect };

export type AttentionViewerProps = {
  name: string;
  /** The source image at preview size (the overlay and fog are made at that size), shown as the original too. */
  src: string;
  width: number;
  height: number;
  result: HeatmapResult;
  /** The automatic area of interest (a simulation's panel), outlined on the heatmap. */
  aoi?: AoiPoint[] | null;
};

/**
 * The original image beside its attention heatmap: the same preview with the
 * colour overlay (or the fog view) stacked on top, whose CSS opacity follows
 * the slider (the server's layers are linear in opacity, so this is exactly
 * the blend at that opacity). Under them, the colour legend and the areas:
 * rectangles drawn with the pointer on the heatmap read their share of
 * attention from `result.grid` at once; each can be removed from the list
 * (keyboard too).
 */
export function AttentionViewer({ name, src, width, height, result, aoi }: AttentionViewerProps) {
  const { t } = useTranslation();
  const ids = { title: useId(), opacity: useId(), hint: useId() };
  const [mode, setMode] = useState<Mode>('heatmap');
  // The heatmap and the fog keep their own opacity: the fog needs more to show anything.
  const [opacities, setOpacities] = useState(DEFAULT_OPACITY);
  const opacity = mode === 'fog' ? opacities.fog : opacities.heatmap;
  const setOpacity = (value: number) =>
    setOpacities((current) => (mode === 'fog' ? { ...current, fog: value } : { ...current, heatmap: value }));
  const [areas, setAreas] = useState<Area[]>([]);
  const [draft, setDraft] = useState<Rect | null>(null);
  const stageRef = useRef<HTMLDivElement>(null);
  const layerRef = useRef<HTMLImageElement>(null);
  const start = useRef<{ x: number; y: number } | null>(null);
  const nextId = useRef(1);

  useOpacityStyle(layerRef, opacity / 100, mode);

  const pointFrom = (event: PointerEvent) => {
    const box = stageRef.current?.getBoundingClientRect();
    if (!box || box.width === 0 || box.height === 0) return null;
    return { x: (event.clientX - box.left) / box.width, y: (event.clientY - box.top) / box.height };
  };

  const onPointerDown = (event: PointerEvent<HTMLDivElement>) => {
    if (event.button !== 0) return;
    const point = pointFrom(event);
    if (!point) return;
    event.preventDefault();
    event.currentTarget.setPointerCapture?.(event.pointerId);
    start.current = point;
    setDraft(rectFromPoints(point, point));
  };
  const onPointerMove = (event: PointerEvent<HTMLDivElement>) => {
    const point = start.current && pointFrom(event);
    if (start.current && point) setDraft(rectFromPoints(start.current, point));
  };
  const onPointerUp = (event: PointerEvent<HTMLDivElement>) => {
    const origin = start.current;
    const point = origin && pointFrom(event);
    start.current = null;
    setDraft(null);
    event.currentTarget.releasePointerCapture?.(event.pointerId);
    if (!origin || !point) return;
    const rect = rectFromPoints(origin, point);
    if (rect.width < MIN_SIDE || rect.height < MIN_SIDE) return;
    const id = nextId.current++;
    setAreas((current) => [...current, { id, rect }]);
  };
  const onPointerCancel = () => {
    start.current = null;
    setDraft(null);
  };

  const layer =
    mode === 'heatmap'
      ? { src: result.urls.overlay, alt: t('heatmap.viewer.overlayAlt', { name }), testId: 'heatmap-overlay' }
      : mode === 'fog'
        ? { src: result.urls.fog, alt: t('heatmap.viewer.fogAlt', { name }), testId: 'heatmap-fog' }
        : null;

  return (
    <div className="hm-viewer">
      <div className="hm-viewer__images">
        <figure className="hm-figure">
          <figcaption>
            <h3 className="hm-section-title">{t('heatmap.item.original')}</h3>
          </figcaption>
          <img
            className="hm-figure__image"
            src={src}
            alt={t('heatmap.item.originalAlt', { name })}
            width={width}
            height={height}
            data-testid="original-image"
          />
        </figure>
        <figure className="hm-figure">
          <figcaption>
            <h3 id={ids.title} className="hm-section-title">
              {t('heatmap.item.attention')}
            </h3>
          </figcaption>
          <div
            ref={stageRef}
            className="hm-stage"
            aria-describedby={ids.hint}
            onPointerDown={onPointerDown}
            onPointerMove={onPointerMove}
            onPointerUp={onPointerUp}
            onPointerCancel={onPointerCancel}
            data-testid="attention-stage"
            data-mode={mode}
          >
            <img className="hm-stage__image" src={src} alt={t('heatmap.viewer.previewAlt', { name })} width={width} height={height} draggable={false} />
            {layer ? (
              <img
                ref={layerRef}
                key={layer.testId}
                className="hm-stage__layer"
                src={layer.src}
                alt={layer.alt}
                width={width}
                height={height}
                draggable={false}
                data-testid={layer.testId}
              />
            ) : null}
            {aoi && aoi.length >= 3 ? (
              <svg className="hm-aoi" viewBox="0 0 1 1" preserveAspectRatio="none" aria-hidden="true" data-testid="aoi-outline">
                <polygon points={aoi.map((p) => `${p.x},${p.y}`).join(' ')} vectorEffect="non-scaling-stroke" />
              </svg>
            ) : null}
            {areas.map((area, index) => (
              <AreaBox key={area.id} rect={area.rect} label={String(index + 1)} />
            ))}
            {draft ? <AreaBox rect={draft} draft /> : null}
          </div>
          <div className="hm-viewer__controls" role="group" aria-labelledby={ids.title}>
            <fieldset className="hm-segmented">
              <legend className="visually-hidden">{t('heatmap.viewer.view')}</legend>
              {MODES.map((value) => (
                <label key={value} className={cn('hm-segmented__option', mode === value && 'hm-segmented__option--active')}>
                  <input
                    type="radio"
                    className="visually-hidden"
                    name={`${ids.title}-mode`}
                    value={value}
                    checked={mode === value}
                    onChange={() => setMode(value)}
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
                onChange={(event) => setOpacity(Number(event.target.value))}
                data-testid="opacity-slider"
              />
              <output htmlFor={ids.opacity} className="hm-opacity__value">
                {t('heatmap.viewer.opacityValue', { value: opacity })}
              </output>
            </div>
          </div>
          {mode === 'fog' ? <p className="field__hint">{t('heatmap.viewer.fogHint')}</p> : null}
        </figure>
      </div>
      <div className="hm-viewer__below">
        <Legend />
        <AreaList
          hintId={ids.hint}
          areas={areas}
          result={result}
          onRemove={(id) => setAreas((current) => current.filter((area) => area.id !== id))}
          onClear={() => setAreas([])}
        />
      </div>
    </div>
  );
}

function AreaBox({ rect, label, draft }: { rect: Rect; label?: string; draft?: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  useRectStyle(ref, rect);
  return (
    <div ref={ref} className={cn('hm-area', draft && 'hm-area--draft')} aria-hidden="true" data-testid={draft ? undefined : 'area-box'}>
      {label ? <span className="hm-area__label">{label}</span> : null}
    </div>
  );
}

/** The colour ramp of the overlay (blue → cyan → green → yellow → red) and what it means. */
function Legend() {
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

type AreaListProps = {
  hintId: string;
  areas: Area[];
  result: HeatmapResult;
  onRemove: (id: number) => void;
  onClear: () => void;
};

/** The drawn rectangles with their share of attention; each has a remove button. */
function AreaList({ hintId, areas, result, onRemove, onClear }: AreaListProps) {
  const { t, i18n } = useTranslation();
  const titleRef = useRef<HTMLHeadingElement>(null);
  const listRef = useRef<HTMLOListElement>(null);
  const language = i18n.language;

  // Keyboard users keep their place: focus moves to the next remove button, or to the title.
  const remove = (id: number, index: number) => {
    onRemove(id);
    requestAnimationFrame(() => {
      const buttons = listRef.current?.querySelectorAll<HTMLButtonElement>('button') ?? [];
      (buttons[Math.min(index, buttons.length - 1)] ?? titleRef.current)?.focus();
    });
  };

  return (
    <div className="hm-areas">
      <h4 ref={titleRef} className="hm-subtitle" tabIndex={-1}>
        {t('heatmap.areas.title')}
      </h4>
      <p id={hintId} className="field__hint">
        {t('heatmap.areas.hint')}
      </p>
      {areas.length > 0 ? (
        <>
          <ol ref={listRef} className="hm-areas__list" aria-label={t('heatmap.areas.listLabel')}>
            {areas.map((area, index) => {
              const share = areaShare(result.grid, area.rect);
              const n = index + 1;
              return (
                <li key={area.id} className="hm-areas__item">
                  <span className="hm-areas__swatch" aria-hidden="true">
                    {n}
                  </span>
                  <span className="hm-areas__text" data-testid="area-share">
                    {t('heatmap.areas.item', {
                      n,
                      share: formatPercent(share.share, language),
                      area: formatPercent(share.area, language),
                      relative: formatRatio(share.relative, language),
                    })}
                  </span>
                  <Button variant="ghost" size="sm" aria-label={t('heatmap.areas.remove', { n })} onClick={() => remove(area.id, index)}>
                    <span aria-hidden="true">×</span>
                  </Button>
                </li>
              );
            })}
          </ol>
          <div className="hm-areas__actions">
            <Button
              variant="link"
              onClick={() => {
                onClear();
                titleRef.current?.focus();
              }}
            >
              {t('heatmap.areas.clear')}
            </Button>
          </div>
          <p className="field__hint">{t('heatmap.areas.relativeHelp')}</p>
        </>
      ) : null}
    </div>
  );
}
