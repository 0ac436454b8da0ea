import { useId, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/button';
import { apiErrorKey, fieldErrorKey, isApiError } from '@/lib/api';
import { cn } from '@/lib/cn';

import {
  MAX_AOI_NAME,
  useCopyAois,
  useDeleteAoi,
  useUpdateAoi,
  type Aoi,
  type AoiShape,
  type HeatmapItem,
  type HeatmapResult,
} from '../api/heatmaps';
import { nameKey } from '../lib/aoi';
import type { useAoiDrawing } from '../lib/use-aoi-drawing';
import { formatPercent, formatRatio } from '../lib/format';

const PRESETS = ['logo', 'headline', 'product', 'cta', 'price', 'brand', 'face', 'text', 'panel'] as const;
/** Most text lines offered as suggestions (the largest come first from the server). */
const MAX_TEXT_SUGGESTIONS = 5;

type Suggestion = { key: string; name: string; shape: AoiShape };

/** Areas worth measuring that the analysis found: faces, text lines, a simulation's panel. */
function useSuggestions(item: HeatmapItem, result: HeatmapResult): Suggestion[] {
  const { t } = useTranslation();
  const list: Suggestion[] = [];
  if (item.aoi && item.aoi.length >= 3) {
    list.push({ key: 'panel', name: t('heatmap.areas.presets.panel'), shape: { points: item.aoi } });
  }
  result.faces.forEach((face, index) =>
    list.push({ key: `face-${index}`, name: t('heatmap.areas.suggested.face', { n: index + 1 }), shape: { rect: face.rect } }),
  );
  result.texts.slice(0, MAX_TEXT_SUGGESTIONS).forEach((text, index) =>
    list.push({ key: `text-${index}`, name: t('heatmap.areas.suggested.text', { n: index + 1 }), shape: { rect: text.rect } }),
  );
  const taken = new Set(item.aois.map((aoi) => nameKey(aoi.name)));
  return list.filter((suggestion) => !taken.has(nameKey(suggestion.name)));
}

export type AoiPanelProps = {
  heatmapId: string;
  item: HeatmapItem;
  result: HeatmapResult;
  /** How many other images the heatmap has (the areas can be copied onto them). */
  others: number;
  /** The drawing state (from [`useAoiDrawing`]), for its errors. */
  drawing: ReturnType<typeof useAoiDrawing>;
  hintId: string;
  /** A share link's page: the areas and their figures only. */
  readOnly?: boolean;
};

/**
 * The areas of interest of one image: each with its name (editable, with
 * usual names offered), its share of attention against its share of the
 * surface, and whether it is likely seen in the first seconds; suggestions
 * from the analysis; copying them onto the heatmap's other images.
 */
export function AoiPanel({ heatmapId, item, result, others, drawing, hintId, readOnly = false }: AoiPanelProps) {
  const { t } = useTranslation();
  const titleRef = useRef<HTMLHeadingElement>(null);
  const listRef = useRef<HTMLOListElement>(null);
  const presetsId = useId();
  const remove = useDeleteAoi();
  const copy = useCopyAois();
  const suggestions = useSuggestions(item, result);
  const create = drawing.create;

  // Keyboard users keep their place: focus moves to the next remove button, or to the title.
  const onRemove = (aoi: Aoi, index: number) =>
    remove.mutate(
      { heatmapId, itemId: item.id, aoiId: aoi.id },
      {
        onSuccess: () =>
          requestAnimationFrame(() => {
            const buttons = listRef.current?.querySelectorAll<HTMLButtonElement>('[data-remove]') ?? [];
            (buttons[Math.min(index, buttons.length - 1)] ?? titleRef.current)?.focus();
          }),
      },
    );

  const error = create.error ?? remove.error ?? copy.error;
  if (readOnly) {
    return item.aois.length > 0 ? (
      <div className="hm-areas" data-testid="aoi-panel">
        <h4 className="hm-subtitle">{t('heatmap.areas.title')}</h4>
        <ol className="hm-areas__list" aria-label={t('heatmap.areas.listLabel')}>
          {item.aois.map((aoi, index) => (
            <li key={aoi.id} className="hm-areas__item" data-testid="aoi">
              <span className="hm-areas__swatch" aria-hidden="true">
                {index + 1}
              </span>
              <div className="hm-areas__body">
                <strong>{aoi.name}</strong>
                <AoiFigures aoi={aoi} />
              </div>
            </li>
          ))}
        </ol>
        <p className="field__hint">{t('heatmap.areas.relativeHelp')}</p>
      </div>
    ) : null;
  }
  return (
    <div className="hm-areas" data-testid="aoi-panel">
      <h4 ref={titleRef} className="hm-subtitle" tabIndex={-1}>
        {t('heatmap.areas.title')}
      </h4>
      <fieldset className="hm-segmented hm-areas__tools" data-testid="aoi-tools">
        <legend className="visually-hidden">{t('heatmap.areas.tool')}</legend>
        {(['rect', 'polygon'] as const).map((tool) => (
          <label key={tool} className={cn('hm-segmented__option', drawing.tool === tool && 'hm-segmented__option--active')}>
            <input
              type="radio"
              className="visually-hidden"
              name={`${hintId}-tool`}
              value={tool}
              checked={drawing.tool === tool}
              onChange={() => drawing.setTool(tool)}
            />
            {t(`heatmap.areas.tools.${tool}`)}
          </label>
        ))}
      </fieldset>
      <p id={hintId} className="field__hint">
        {t(drawing.tool === 'polygon' ? 'heatmap.areas.hintPolygon' : 'heatmap.areas.hint')}
      </p>
      <datalist id={presetsId}>
        {PRESETS.map((preset) => (
          <option key={preset} value={t(`heatmap.areas.presets.${preset}`)} />
        ))}
      </datalist>
      {item.aois.length > 0 ? (
        <ol ref={listRef} className="hm-areas__list" aria-label={t('heatmap.areas.listLabel')}>
          {item.aois.map((aoi, index) => (
            <AoiRow
              key={aoi.id}
              aoi={aoi}
              n={index + 1}
              heatmapId={heatmapId}
              itemId={item.id}
              presetsId={presetsId}
              onRemove={() => onRemove(aoi, index)}
              removing={remove.isPending && remove.variables?.aoiId === aoi.id}
            />
          ))}
        </ol>
      ) : null}
      {error ? (
        <p role="alert" className="form-error">
          {t(apiErrorKey(error))}
        </p>
      ) : null}
      {suggestions.length > 0 ? (
        <div className="hm-areas__suggestions" role="group" aria-label={t('heatmap.areas.suggestions')}>
          <span className="field__hint">{t('heatmap.areas.suggestions')}</span>
          {suggestions.map((suggestion) => (
            <Button
              key={suggestion.key}
              variant="secondary"
              size="sm"
              disabled={create.isPending}
              onClick={() => create.mutate({ heatmapId, itemId: item.id, name: suggestion.name, shape: suggestion.shape })}
              data-testid="aoi-suggestion"
            >
              {t('heatmap.areas.add', { name: suggestion.name })}
            </Button>
          ))}
        </div>
      ) : null}
      {others > 0 && item.aois.length > 0 ? (
        <div className="hm-areas__actions">
          <Button
            variant="secondary"
            size="sm"
            disabled={copy.isPending}
            onClick={() => copy.mutate({ heatmapId, itemId: item.id })}
            data-testid="copy-aois"
          >
            {t('heatmap.areas.copy', { count: others })}
          </Button>
          {copy.isSuccess ? (
            <p role="status" className="field__hint">
              {t('heatmap.areas.copied', { count: others })}
            </p>
          ) : null}
        </div>
      ) : null}
      {item.aois.length > 0 ? <p className="field__hint">{t('heatmap.areas.relativeHelp')}</p> : null}
    </div>
  );
}

type AoiRowProps = {
  aoi: Aoi;
  n: number;
  heatmapId: string;
  itemId: string;
  presetsId: string;
  onRemove: () => void;
  removing: boolean;
};

/** One area: its number (as on the image), its name in an input, its figures, a remove button. */
function AoiRow({ aoi, n, heatmapId, itemId, presetsId, onRemove, removing }: AoiRowProps) {
  const { t } = useTranslation();
  const [name, setName] = useState(aoi.name);
  const errorId = useId();
  const update = useUpdateAoi();
  const fieldCode = isApiError(update.error) ? update.error.fields.name : undefined;

  const commit = () => {
    const next = name.trim();
    if (!next) {
      setName(aoi.name);
      return;
    }
    if (next === aoi.name) return;
    update.mutate({ heatmapId, itemId, aoiId: aoi.id, name: next }, { onSuccess: (saved) => setName(saved.name) });
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      commit();
    } else if (event.key === 'Escape') {
      setName(aoi.name);
      update.reset();
    }
  };

  return (
    <li className="hm-areas__item" data-testid="aoi">
      <span className="hm-areas__swatch" aria-hidden="true">
        {n}
      </span>
      <div className="hm-areas__body">
        <input
          className="ui-input hm-areas__name"
          value={name}
          maxLength={MAX_AOI_NAME}
          list={presetsId}
          aria-label={t('heatmap.areas.nameLabel', { n })}
          aria-invalid={fieldCode ? true : undefined}
          aria-describedby={fieldCode ? errorId : undefined}
          onChange={(event) => setName(event.target.value)}
          onBlur={commit}
          onKeyDown={onKeyDown}
          data-testid="aoi-name"
        />
        {fieldCode ? (
          <p id={errorId} className="field__error" role="alert">
            {fieldCode === 'taken' ? t('heatmap.areas.taken') : t(fieldErrorKey(fieldCode))}
          </p>
        ) : update.isError ? (
          <p className="field__error" role="alert">
            {t(apiErrorKey(update.error))}
          </p>
        ) : null}
        <AoiFigures aoi={aoi} />
      </div>
      <Button
        variant="ghost"
        size="sm"
        aria-label={t('heatmap.areas.remove', { name: aoi.name })}
        onClick={onRemove}
        disabled={removing}
        data-remove
      >
        <span aria-hidden="true">×</span>
      </Button>
    </li>
  );
}

/** An area's share of attention against its share of the surface, when it is likely seen, and
 * the probability that a viewer looks at it within the first second. */
function AoiFigures({ aoi }: { aoi: Aoi }) {
  const { t, i18n } = useTranslation();
  const language = i18n.language;
  const attention = aoi.attention;
  return (
    <>
      {attention ? (
          <>
            <span className="hm-areas__text" data-testid="area-share">
              {t('heatmap.areas.stats', {
                share: formatPercent(attention.share, language),
                area: formatPercent(attention.area, language),
                relative: formatRatio(attention.relative, language),
              })}
            </span>
            <span
              className={attention.seen_early ? 'hm-areas__seen hm-areas__seen--early' : 'hm-areas__seen'}
              data-testid="area-seen"
            >
              {attention.seen_rank === null
                ? t('heatmap.areas.seenNone')
                : attention.seen_early
                  ? t('heatmap.areas.seenEarly', { rank: attention.seen_rank })
                  : t('heatmap.areas.seenLater', { rank: attention.seen_rank })}
            </span>
            {attention.first_second_probability != null ? (
              <span className="hm-areas__text" data-testid="area-first-second">
                {t('heatmap.areas.firstSecond', {
                  probability: formatPercent(attention.first_second_probability, language),
                })}
              </span>
            ) : null}
          </>
        ) : null}
    </>
  );
}
