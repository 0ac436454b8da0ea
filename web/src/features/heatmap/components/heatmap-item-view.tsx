import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { Button } from '@/components/ui/button';
import { apiErrorKey } from '@/lib/api';
import { useWorkspace } from '@/lib/workspace';

import { useItemBenchmarks, type ItemStanding } from '../api/benchmarks';
import { useRetryItem, type HeatmapItem, type HeatmapResult, type PanelShare } from '../api/heatmaps';
import { formatPercent, formatRatio } from '../lib/format';
import { itemName, labelPath } from '../lib/names';
import { useAoiDrawing } from '../lib/use-aoi-drawing';
import { hasGlance, useViewState } from '../lib/view-state';

import { AoiPanel } from './aoi-panel';
import { AttentionViewer } from './attention-viewer';
import { BenchmarkPanel } from './benchmark-panel';
import { ExportMenu } from './export-menu';
import { AnalysisPanel, MetricsList, ScoreCard } from './result-panels';
import { StatusBadge } from './status-badge';

export type HeatmapItemViewProps = {
  item: HeatmapItem;
  /** The heatmap the item belongs to (for retry and its areas of interest). */
  heatmapId: string;
  /** How many other images the heatmap has (areas can be copied onto them). */
  others?: number;
  /**
   * A share link's page: nothing to draw, rename, copy or retry, no link into the library, no
   * export. (A viewer of the workspace gets the first part of that alone: see `useWorkspace`.)
   */
  readOnly?: boolean;
  /** A share link's page: the benchmarks that came with the heatmap (else they are fetched). */
  sharedBenchmarks?: ItemStanding | null;
};

/**
 * One image of a heatmap: while queued or processing, a live progress line;
 * once done, the original, the attention heatmap, the score, the metrics and
 * the analysis; when failed, the translated failure with a retry button.
 * Used by the results page and by the media page.
 */
export function HeatmapItemView({ item, heatmapId, others = 0, readOnly = false, sharedBenchmarks = null }: HeatmapItemViewProps) {
  const { t } = useTranslation();
  const titleId = useId();
  const name = itemName(item, t);

  return (
    <section className="hm-item" aria-labelledby={titleId} data-testid="heatmap-item" data-status={item.status}>
      <header className="hm-item__header">
        <h2 id={titleId} className="hm-item__title">
          {name}
        </h2>
        {item.label && !readOnly ? (
          <Link className="hm-item__source" to={labelPath(item.label)} data-testid="source-link">
            {t(`heatmap.item.open.${item.label.kind}`)}
          </Link>
        ) : null}
        <StatusBadge status={item.status} />
      </header>
      {item.status === 'done' && item.result ? (
        <ItemResult
          item={item}
          result={item.result}
          name={name}
          heatmapId={heatmapId}
          others={others}
          readOnly={readOnly}
          sharedBenchmarks={sharedBenchmarks}
        />
      ) : item.status === 'failed' ? (
        <ItemFailed item={item} heatmapId={heatmapId} readOnly={readOnly} />
      ) : (
        <ItemProgress item={item} />
      )}
    </section>
  );
}

/** Under this many pixels on its short side, an image is too small to judge well. */
const SMALL_SIDE = 300;

type ItemResultProps = {
  item: HeatmapItem;
  result: HeatmapResult;
  name: string;
  heatmapId: string;
  others: number;
  readOnly: boolean;
  sharedBenchmarks: ItemStanding | null;
};

function ItemResult({ item, result, name, heatmapId, others, readOnly, sharedBenchmarks }: ItemResultProps) {
  const { t } = useTranslation();
  // Areas are drawn, renamed and copied by those who may change the workspace's library.
  const { canEdit } = useWorkspace();
  const editable = !readOnly && canEdit;
  const hintId = useId();
  const drawing = useAoiDrawing({ heatmapId, item });
  // Shared by the viewer and the analysis text, which follows the map shown.
  const view = useViewState();
  const fetched = useItemBenchmarks(heatmapId, item, !readOnly);
  const benchmarks = readOnly ? sharedBenchmarks : fetched;
  const { source } = item;
  const small = Math.min(source.width, source.height) < SMALL_SIDE;
  return (
    <div className="hm-item__body">
      {small ? (
        <p className="hm-notice" data-testid="small-image">
          {t('heatmap.item.smallImage', { width: source.width, height: source.height, min: SMALL_SIDE })}
        </p>
      ) : null}
      <AttentionViewer
        name={name}
        src={source.urls.preview}
        width={source.width}
        height={source.height}
        result={result}
        view={view}
        panel={item.aoi}
        aois={item.aois}
        onDraw={editable ? drawing.onDraw : undefined}
        tool={drawing.tool}
        onDrawPolygon={editable ? drawing.onDrawPolygon : undefined}
        pending={drawing.pending}
        hintId={editable ? hintId : undefined}
        actions={
          readOnly
            ? undefined
            : (shown, markers) => (
                <ExportMenu heatmapId={heatmapId} itemId={item.id} name={name} view={shown} markers={markers} glance={hasGlance(result)} />
              )
        }
        below={<AoiPanel heatmapId={heatmapId} item={item} result={result} others={others} drawing={drawing} hintId={hintId} readOnly={!editable} />}
      />
      <div className="hm-item__insights">
        {result.panel ? <PanelSummary panel={result.panel} /> : null}
        <ScoreCard score={result.score} />
        <MetricsList result={result} />
        {benchmarks ? <BenchmarkPanel benchmarks={benchmarks.item} reference={benchmarks.reference} aois={item.aois ?? []} /> : null}
        <AnalysisPanel result={result} moment={view.moment} />
      </div>
    </div>
  );
}

/** The simulation's panel (the automatic area of interest): its share of attention against its size. */
function PanelSummary({ panel }: { panel: PanelShare }) {
  const { t, i18n } = useTranslation();
  const visibility = panel.visibility ?? (panel.area_share > 0 ? panel.share / panel.area_share : 0);
  return (
    <p className="hm-panel" data-testid="panel-share">
      <span className="hm-panel__title">{t('heatmap.panel.title')}</span>
      {t('heatmap.panel.summary', {
        share: formatPercent(panel.share, i18n.language),
        area: formatPercent(panel.area_share, i18n.language),
        visibility: formatRatio(visibility, i18n.language),
      })}
      {panel.first_second_probability != null ? (
        <span className="hm-panel__first" data-testid="panel-first-second">
          {t('heatmap.panel.firstSecond', { probability: formatPercent(panel.first_second_probability, i18n.language) })}
        </span>
      ) : null}
    </p>
  );
}

/** Queued or processing: the thumbnail and a live status line (updated by the live stream). */
function ItemProgress({ item }: { item: HeatmapItem }) {
  const { t } = useTranslation();
  return (
    <div className="hm-progress" data-testid="item-progress">
      <img className="hm-progress__thumb" src={item.source.urls.thumbnail} alt="" width={item.source.width} height={item.source.height} />
      <div>
        <p className="hm-progress__status" role="status">
          <span className="ui-spinner ui-spinner--sm" aria-hidden="true">
            <span className="ui-spinner__circle" />
          </span>
          <span>{item.status === 'processing' ? t('heatmap.item.processing') : t('heatmap.item.queued')}</span>
        </p>
        <p className="field__hint">{t('heatmap.item.progressHint')}</p>
      </div>
    </div>
  );
}

const FAILURE_KEYS = {
  invalid_image: 'heatmap.item.errors.invalid_image',
  source_missing: 'heatmap.item.errors.source_missing',
  internal: 'heatmap.item.errors.internal',
} as const;

/** Failed: the spec's message, the reason when known, and a retry (only this item is affected). */
function ItemFailed({ item, heatmapId, readOnly }: { item: HeatmapItem; heatmapId: string; readOnly: boolean }) {
  const { t } = useTranslation();
  const { canEdit } = useWorkspace();
  const retry = useRetryItem();
  const code = item.error?.code;
  const reason = code && code in FAILURE_KEYS ? t(FAILURE_KEYS[code as keyof typeof FAILURE_KEYS]) : null;
  return (
    <div className="hm-failed" data-testid="item-failed">
      <img className="hm-progress__thumb" src={item.source.urls.thumbnail} alt="" width={item.source.width} height={item.source.height} />
      <div className="hm-failed__body">
        <p role="alert" className="hm-failed__message">
          {t('heatmap.item.failed')}
        </p>
        {reason ? <p className="field__hint">{reason}</p> : null}
        {readOnly || !canEdit ? null : (
        <Button
          variant="secondary"
          onClick={() => retry.mutate({ heatmapId, itemId: item.id })}
          disabled={retry.isPending}
          data-testid="retry-item"
        >
          {retry.isPending ? t('heatmap.item.retrying') : t('heatmap.item.retry')}
        </Button>
        )}
        {retry.isError ? (
          <p role="alert" className="form-error">
            {t(apiErrorKey(retry.error))}
          </p>
        ) : null}
      </div>
    </div>
  );
}
