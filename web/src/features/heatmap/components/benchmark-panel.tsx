import { useId } from 'react';
import { useTranslation } from 'react-i18next';

import type { Aoi } from '../api/heatmaps';
import { MIN_LIBRARY, type Benchmarks, type ItemBenchmarks, type LibraryStanding, type ReferenceStanding } from '../api/benchmarks';
import { formatPercent, formatRatio, formatScore } from '../lib/format';

type BenchmarkPanelProps = {
  benchmarks: ItemBenchmarks;
  reference: Benchmarks['reference'];
  /** The item's areas (their names; the benchmarks carry their ids). */
  aois: Aoi[];
};

const METRICS = ['score', 'focus', 'clarity', 'panel', 'first_second'] as const;

/**
 * Where this result stands: each measure and each area's share of attention against the user's
 * other results of the same kind (creatives with creatives…) and against the reference images
 * shipped with the product. A percentile reads "above N % of them".
 */
export function BenchmarkPanel({ benchmarks, reference, aois }: BenchmarkPanelProps) {
  const { t, i18n } = useTranslation();
  const titleId = useId();
  const language = i18n.language;
  const kind = benchmarks.kind;
  const names = new Map(aois.map((aoi) => [aoi.id, aoi.name]));
  const areas = benchmarks.aois.filter((area) => names.has(area.aoi_id));
  const libraryHeader = t(`heatmap.benchmarks.library.${kind}`);
  // A share link's page has the reference only.
  const withLibrary = Object.values(benchmarks.metrics).some((m) => m.library !== null);
  const referenceHeader = t('heatmap.benchmarks.reference', { name: reference.name });
  return (
    <section className="hm-bench" aria-labelledby={titleId} data-testid="benchmarks" data-kind={kind}>
      <h3 id={titleId} className="hm-section-title">
        {t('heatmap.benchmarks.title')}
      </h3>
      <table className="hm-bench__table">
        <thead>
          <tr>
            <th scope="col">{t('heatmap.benchmarks.measure')}</th>
            {withLibrary ? <th scope="col">{libraryHeader}</th> : null}
            <th scope="col">{referenceHeader}</th>
          </tr>
        </thead>
        <tbody>
          {METRICS.map((metric) => {
            const bench = benchmarks.metrics[metric];
            if (!bench) return null;
            const value =
              metric === 'panel'
                ? `×${formatRatio(bench.value, language)}`
                : metric === 'first_second'
                  ? formatPercent(bench.value, language)
                  : formatScore(bench.value, language);
            return (
              <tr key={metric} data-testid={`benchmark-${metric}`}>
                <th scope="row">
                  <span className="hm-bench__name">{t(`heatmap.benchmarks.metrics.${metric}`)}</span>{' '}
                  <span className="hm-bench__value">{value}</span>
                </th>
                {bench.library ? (
                  <td data-label={libraryHeader}>
                    <LibraryCell standing={bench.library} />
                  </td>
                ) : null}
                <td data-label={referenceHeader}>
                  <ReferenceCell standing={bench.reference} />
                </td>
              </tr>
            );
          })}
          {areas.map((area) => (
            <tr key={area.aoi_id} data-testid="benchmark-area">
              <th scope="row">
                <span className="hm-bench__name">{names.get(area.aoi_id)}</span>{' '}
                <span className="hm-bench__value">{formatPercent(area.share, language)}</span>
              </th>
              {area.library ? (
                <td data-label={t('heatmap.benchmarks.libraryAreas', { name: names.get(area.aoi_id) })}>
                  <LibraryCell standing={area.library} area />
                </td>
              ) : null}
              <td data-label={referenceHeader}>
                <ReferenceCell standing={area.reference} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="hm-bench__note">
        {withLibrary
          ? t('heatmap.benchmarks.note', { min: MIN_LIBRARY, images: reference.images, name: reference.name })
          : t('heatmap.benchmarks.noteReference', { images: reference.images, name: reference.name })}
        {areas.length > 0 ? ` ${t(withLibrary ? 'heatmap.benchmarks.areasNote' : 'heatmap.benchmarks.areasNoteReference')}` : null}
      </p>
    </section>
  );
}

/** "Above 72 %" with a bar, or how many results are still missing. */
function LibraryCell({ standing, area = false }: { standing: LibraryStanding; area?: boolean }) {
  const { t } = useTranslation();
  if (standing.percentile === null) {
    return (
      <span className="hm-bench__missing" data-testid="benchmark-library-missing">
        {t(area ? 'heatmap.benchmarks.notEnoughAreas' : 'heatmap.benchmarks.notEnough', { count: standing.count, min: MIN_LIBRARY })}
      </span>
    );
  }
  return <Standing percentile={standing.percentile} count={standing.count} testId="benchmark-library" />;
}

function ReferenceCell({ standing }: { standing: ReferenceStanding | null }) {
  const { t } = useTranslation();
  if (!standing) return <span className="hm-bench__missing">{t('heatmap.benchmarks.noReference')}</span>;
  return <Standing percentile={standing.percentile} count={standing.count} testId="benchmark-reference" />;
}

function Standing({ percentile, count, testId }: { percentile: number; count: number; testId: string }) {
  const { t, i18n } = useTranslation();
  const rounded = Math.round(percentile);
  const total = new Intl.NumberFormat(i18n.language).format(count);
  // The extremes read better as words than as "above 0 %" and "above 100 %".
  const label =
    rounded <= 0
      ? t('heatmap.benchmarks.lowest', { total })
      : rounded >= 100
        ? t('heatmap.benchmarks.highest', { total })
        : t('heatmap.benchmarks.above', { percent: formatPercent(rounded / 100, i18n.language), total });
  return (
    <span className="hm-bench__standing" data-testid={testId} data-percentile={rounded} title={label}>
      <span className="hm-bench__bar" aria-hidden="true">
        <span className="hm-bench__fill" style={{ width: `${rounded}%` }} />
      </span>
      <span className="hm-bench__text">{label}</span>
    </span>
  );
}
