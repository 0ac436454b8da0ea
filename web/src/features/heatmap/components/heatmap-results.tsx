import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { QueryError } from '@/components/query-error';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { formatDateTime } from '@/lib/dates';
import { safeFileName, useDownloadFile } from '@/lib/download';
import { useWorkspace } from '@/lib/workspace';

import { reportPath } from '../api/exports';
import { heatmapQueryOptions } from '../api/heatmaps';
import { formatScore } from '../lib/format';
import { itemName } from '../lib/names';

import { HeatmapItemView } from './heatmap-item-view';
import { SharePanel } from './share-panel';
import { StatusBadge } from './status-badge';
import { DownloadError } from './download-error';

/**
 * The results of one heatmap: a summary line, then every image in order.
 * Items still running update in place from the live stream (the page holds
 * the connection); nothing here reloads.
 */
export function HeatmapResults({ id }: { id: string }) {
  const { t, i18n } = useTranslation();
  const query = useQuery(heatmapQueryOptions(id));
  const [sharing, setSharing] = useState(false);
  const { canEdit } = useWorkspace();

  if (query.isPending) return <Spinner />;
  if (query.isError) {
    return <QueryError error={query.error} onRetry={() => void query.refetch()} />;
  }

  const heatmap = query.data;
  const items = [...heatmap.items].sort((a, b) => a.position - b.position);
  const language = i18n.language;
  // The best image, not a mean: the scores of different images do not average into anything.
  const best = items.reduce<(typeof items)[number] | null>(
    (top, item) => (item.result && (!top?.result || item.result.score > top.result.score) ? item : top),
    null,
  );
  return (
    <>
      <div className="hm-summary" data-testid="heatmap-summary">
        <StatusBadge status={heatmap.status} />
        <span>{t('heatmap.results.created', { date: formatDateTime(heatmap.created_at, language) })}</span>
        <span>{t('heatmap.results.progress', { done: heatmap.done_count, total: heatmap.item_count })}</span>
        {heatmap.failed_count > 0 ? <span>{t('heatmap.results.failedCount', { count: heatmap.failed_count })}</span> : null}
        {best?.result && heatmap.item_count > 1 ? (
          <span data-testid="best-score">
            {t('heatmap.results.bestScore', {
              score: formatScore(best.result.score, language),
              name: itemName(best, t),
            })}
          </span>
        ) : null}
        <ReportButton heatmapId={heatmap.id} name={heatmap.name} />
        {canEdit ? (
          <Button variant="secondary" size="sm" aria-expanded={sharing} onClick={() => setSharing((open) => !open)} data-testid="share-toggle">
            {t('heatmap.share.open')}
          </Button>
        ) : null}
        {heatmap.done_count >= 2 ? (
          <Link className="ui-button ui-button--secondary ui-button--sm" to={`/heatmap/results/${encodeURIComponent(heatmap.id)}/compare`} data-testid="compare-link">
            {t('heatmap.compare.link')}
          </Link>
        ) : null}
      </div>
      {sharing && canEdit ? <SharePanel heatmapId={heatmap.id} /> : null}
      <div className="hm-items" aria-label={t('heatmap.results.itemsLabel')} role="group">
        {items.map((item) => (
          <HeatmapItemView key={item.id} item={item} heatmapId={heatmap.id} others={items.length - 1} />
        ))}
      </div>
    </>
  );
}

/** Downloads the heatmap's PDF report in the interface language. */
function ReportButton({ heatmapId, name }: { heatmapId: string; name: string }) {
  const { t, i18n } = useTranslation();
  const download = useDownloadFile();
  return (
    <>
      <Button variant="secondary" size="sm" disabled={download.isPending} onClick={() => download.mutate({ path: reportPath(heatmapId, i18n.language), fileName: `${safeFileName(name)}.pdf` })}
        data-testid="download-report"
      >
        {t('report.download')}
      </Button>
      <DownloadError error={download.isError ? download.error : null} />
    </>
  );
}
