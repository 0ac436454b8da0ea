import { useQuery } from '@tanstack/react-query';
import type { CSSProperties } from 'react';
import { useTranslation } from 'react-i18next';

import { Spinner } from '@/components/ui/spinner';
import { apiErrorKey, isApiError } from '@/lib/api';
import { formatDate, formatDateTime } from '@/lib/dates';
import { safeFileName } from '@/lib/download';

import { itemOf } from '../api/benchmarks';
import { sharedHeatmapQueryOptions, sharedReportPath } from '../api/heatmaps';
import { itemName } from '../lib/names';

import { HeatmapItemView } from './heatmap-item-view';

/**
 * What a share link opens, without an account: the agency that shares it (its logo, name and
 * colour, when set), the heatmap's name, how long the link lasts, the PDF report and each image
 * to download, and every image's result read-only (areas listed, nothing to draw, rename, copy or
 * retry).
 */
export function SharedHeatmap({ token }: { token: string }) {
  const { t, i18n } = useTranslation();
  const query = useQuery(sharedHeatmapQueryOptions(token));
  const language = i18n.language;

  if (query.isPending) return <Spinner />;
  if (query.isError) {
    const notFound = isApiError(query.error) && query.error.code === 'not_found';
    return (
      <p className="hm-notice" role="alert" data-testid="shared-error">
        {notFound ? t('shared.notFound') : t(apiErrorKey(query.error))}
      </p>
    );
  }
  const { heatmap, benchmarks, expires_at, branding } = query.data;
  const items = [...heatmap.items].sort((a, b) => a.position - b.position);
  const agency = branding?.agency_name ?? null;
  // The agency's colour as the page's accent (a rule under its name); Regard's otherwise.
  const style = branding?.accent_color ? ({ '--share-accent': branding.accent_color } as CSSProperties) : undefined;
  return (
    <section className="content shared" style={style}>
      {branding && (agency || branding.logo_url) ? (
        <div className="shared__brand" data-testid="shared-brand">
          {branding.logo_url ? <img className="shared__logo" src={branding.logo_url} alt={agency ?? t('shared.logoAlt')} /> : null}
          {agency ? <span className="shared__agency">{agency}</span> : null}
        </div>
      ) : null}
      <header className="content__header">
        <h1 className="content__title">{heatmap.name}</h1>
        <a className="ui-button ui-button--secondary ui-button--md" href={sharedReportPath(token, language)} download data-testid="shared-report">
          {t('shared.downloadReport')}
        </a>
      </header>
      <p className="hm-notice" data-testid="shared-notice">
        {agency
          ? t('shared.readOnlyBy', { agency, date: formatDate(new Date(expires_at), language) })
          : t('shared.readOnly', { date: formatDate(new Date(expires_at), language) })}
      </p>
      <p className="field__hint">{t('shared.created', { date: formatDateTime(heatmap.created_at, language) })}</p>
      <div className="hm-items" aria-label={t('heatmap.results.itemsLabel')} role="group">
        {items.map((item) => (
          <div key={item.id} className="shared__item">
            <HeatmapItemView item={item} heatmapId={heatmap.id} readOnly sharedBenchmarks={itemOf(benchmarks, item.id)} />
            <a
              className="ui-button ui-button--ghost ui-button--sm shared__download"
              href={item.source.urls.preview}
              download={downloadName(itemName(item, t), item.source.mime)}
              data-testid="shared-image-download"
            >
              {t('shared.downloadImage', { name: itemName(item, t) })}
            </a>
          </div>
        ))}
      </div>
    </section>
  );
}

/** A file name for a downloaded image: its name and the extension of its type. */
function downloadName(name: string, mime: string): string {
  const extension = mime === 'image/png' ? 'png' : mime === 'image/webp' ? 'webp' : 'jpg';
  return `${safeFileName(name)}.${extension}`;
}
