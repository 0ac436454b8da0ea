import { useQuery } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { QueryError } from '@/components/query-error';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { cn } from '@/lib/cn';
import { safeFileName, useDownloadFile } from '@/lib/download';

import { compareExportPath, reportPath } from '../api/exports';
import { heatmapQueryOptions } from '../api/heatmaps';
import { compareVariants, type Row, type Variant } from '../lib/compare';
import { formatPercent, formatScore } from '../lib/format';
import { itemName } from '../lib/names';
import { hasGlance, shownMap, useViewState, type Moment, type ViewState } from '../lib/view-state';

import { AttentionStage, Legend, MarkerKey, ViewControls } from './attention-viewer';
import { DownloadError } from './download-error';

/** Most images side by side (more would be too small to read). */
const MAX_SIDE_BY_SIDE = 4;

/**
 * The compare view of a heatmap: its done images side by side at the same
 * size, one view switch and opacity for all, then a table of the measures and
 * of the areas of interest of the same name with their differences from the
 * first image, and a sentence per measure saying which image wins.
 */
export function HeatmapCompare({ id }: { id: string }) {
  const { t, i18n } = useTranslation();
  const query = useQuery(heatmapQueryOptions(id));
  const [chosen, setChosen] = useState<string[] | null>(null);
  const view = useViewState();
  const ids = { pick: useId(), controls: useId() };

  if (query.isPending) return <Spinner />;
  if (query.isError) return <QueryError error={query.error} onRetry={() => void query.refetch()} />;

  const done: Variant[] = [...query.data.items]
    .sort((a, b) => a.position - b.position)
    .flatMap((item) => (item.status === 'done' && item.result ? [{ item, result: item.result }] : []));
  if (done.length < 2) {
    return <p className="hm-notice">{t('heatmap.compare.tooFew')}</p>;
  }
  const selected = chosen ?? done.slice(0, MAX_SIDE_BY_SIDE).map((v) => v.item.id);
  const variants = done.filter((v) => selected.includes(v.item.id));
  // The first glance is offered when every image shown has one (else maps of two kinds would sit side by side).
  const glance = variants.length > 0 && variants.every((v) => hasGlance(v.result));
  const moment = glance ? view.moment : 'exploration';
  const toggle = (itemId: string) =>
    setChosen(selected.includes(itemId) ? selected.filter((x) => x !== itemId) : [...selected, itemId]);

  return (
    <div className="hm-compare" data-testid="heatmap-compare">
      {done.length > 2 ? (
        <fieldset className="hm-compare__pick">
          <legend id={ids.pick}>{t('heatmap.compare.pick')}</legend>
          {done.map(({ item }) => (
            <label key={item.id} className="hm-check">
              <input
                type="checkbox"
                checked={selected.includes(item.id)}
                disabled={!selected.includes(item.id) && selected.length >= MAX_SIDE_BY_SIDE}
                onChange={() => toggle(item.id)}
              />
              {itemName(item, t)}
            </label>
          ))}
        </fieldset>
      ) : null}
      <h2 id={ids.controls} className="visually-hidden">
        {t('heatmap.compare.view')}
      </h2>
      <ViewControls view={view} labelledBy={ids.controls} glance={glance} />
      {variants.length < 2 ? (
        <p className="hm-notice">{t('heatmap.compare.pickTwo')}</p>
      ) : (
        <>
          <div className={cn('hm-compare__grid', `hm-compare__grid--${variants.length}`)}>
            {variants.map(({ item, result }) => (
              <figure key={item.id} className="hm-compare__variant" data-testid="compare-variant">
                <figcaption className="hm-compare__caption">
                  <span className="hm-compare__name">{itemName(item, t)}</span>
                  <span className="hm-compare__score">
                    {t('heatmap.compare.scoreShort', { score: formatScore(result.score, i18n.language) })}
                  </span>
                </figcaption>
                <AttentionStage
                  name={itemName(item, t)}
                  src={item.source.urls.preview}
                  width={item.source.width}
                  height={item.source.height}
                  result={result}
                  mode={view.mode}
                  moment={moment}
                  opacity={view.opacity}
                  panel={item.aoi}
                  aois={item.aois}
                  markers
                />
                {item.aois.length > 0 ? (
                  <ol className="hm-compare__areas" aria-label={t('heatmap.compare.areas', { name: itemName(item, t) })} data-testid="compare-areas">
                    {item.aois.map((aoi, index) => (
                      <li key={aoi.id} className="hm-compare__area">
                        <span className="hm-area__label hm-key__symbol" aria-hidden="true">
                          {index + 1}
                        </span>
                        <span className="hm-compare__area-name">{aoi.name}</span>
                      </li>
                    ))}
                  </ol>
                ) : null}
              </figure>
            ))}
          </div>
          <MarkerKey order={variants.some((v) => shownMap(v.result, moment).hotspots.length > 0)} areas={variants.some((v) => v.item.aois.length > 0)} />
          <Legend />
          <CompareExports heatmapId={id} name={query.data.name} itemIds={variants.map((v) => v.item.id)} view={view} moment={moment} />
          <ComparisonTable variants={variants} />
        </>
      )}
    </div>
  );
}

/** The comparison as files: the shown view of every variant side by side (PNG), and its PDF. */
function CompareExports(props: { heatmapId: string; name: string; itemIds: string[]; view: ViewState; moment: Moment }) {
  const { heatmapId, name, itemIds, view, moment } = props;
  const { t, i18n } = useTranslation();
  const download = useDownloadFile();
  const base = safeFileName(name);
  const fog = view.mode === 'fog';
  return (
    <div className="hm-compare__exports">
      <Button
        variant="secondary"
        size="sm"
        disabled={download.isPending}
        data-testid="compare-png"
        onClick={() =>
          download.mutate({
            path: compareExportPath(
              heatmapId,
              itemIds,
              fog ? 'fog' : 'overlay',
              view.mode === 'original' ? undefined : view.opacity / 100,
              moment,
              i18n.language,
            ),
            fileName: `${base}-${t('heatmap.export.sideBySideFile')}${moment === 'glance' ? `-${t('heatmap.export.glanceFile')}` : ''}.png`,
          })
        }
      >
        {t('heatmap.export.comparePng')}
      </Button>
      <Button
        variant="secondary"
        size="sm"
        disabled={download.isPending}
        data-testid="compare-pdf"
        onClick={() => download.mutate({ path: reportPath(heatmapId, i18n.language, itemIds), fileName: `${base}.pdf` })}
      >
        {t('heatmap.export.comparePdf')}
      </Button>
      <DownloadError error={download.isError ? download.error : null} />
    </div>
  );
}

function ComparisonTable({ variants }: { variants: Variant[] }) {
  const { t, i18n } = useTranslation();
  const language = i18n.language;
  const rows = compareVariants(variants);
  const names = variants.map((v) => itemName(v.item, t));
  const isShare = (row: Row) => row.kind === 'aoi';
  const value = (row: Row, v: number) => (isShare(row) ? formatPercent(v, language) : formatScore(v, language));
  // Deltas are differences of the shown values (lib/compare.ts): percentage points for areas.
  const delta = (row: Row, d: number) => {
    const sign = d > 0 ? '+' : d < 0 ? '−' : '±';
    const magnitude = Math.abs(d);
    return isShare(row)
      ? t('heatmap.compare.deltaPoints', {
          sign,
          value: new Intl.NumberFormat(language, { maximumFractionDigits: 1 }).format(magnitude),
        })
      : `${sign}${formatScore(magnitude, language)}`;
  };
  const label = (row: Row) =>
    row.kind === 'aoi' ? t('heatmap.compare.measures.aoi', { name: row.name }) : t(`heatmap.compare.measures.${row.kind}`);

  return (
    <section className="hm-compare__results" aria-labelledby="hm-compare-title">
      <h2 id="hm-compare-title" className="hm-section-title">
        {t('heatmap.compare.tableTitle')}
      </h2>
      <div className="hm-compare__table-wrap">
        <table className="hm-compare__table" data-testid="compare-table">
          <caption className="field__hint">{t('heatmap.compare.caption', { name: names[0] })}</caption>
          <thead>
            <tr>
              <th scope="col">{t('heatmap.compare.measure')}</th>
              {names.map((name, index) => (
                <th key={variants[index].item.id} scope="col">
                  {name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={`${row.kind}-${row.name ?? ''}`} data-testid="compare-row">
                <th scope="row">{label(row)}</th>
                {row.values.map((v, index) => (
                  <td key={variants[index].item.id} className={cn(row.winner === index && 'hm-compare__win')}>
                    {v === null ? (
                      <span aria-label={t('heatmap.compare.missing')}>—</span>
                    ) : (
                      <>
                        <span className="hm-compare__value">{value(row, v)}</span>
                        {row.deltas[index] !== null ? (
                          <span className="hm-compare__delta" data-testid="compare-delta">
                            {delta(row, row.deltas[index] ?? 0)}
                          </span>
                        ) : null}
                        {row.ranks?.[index] ? (
                          <span className="hm-compare__rank">{t('heatmap.compare.rank', { rank: row.ranks[index] })}</span>
                        ) : null}
                      </>
                    )}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h3 className="hm-subtitle">{t('heatmap.compare.verdict')}</h3>
      <ul className="hm-analysis__list" data-testid="compare-verdict">
        {rows.map((row) => (
          <li key={`${row.kind}-${row.name ?? ''}`}>{verdict(row, names, value, t)}</li>
        ))}
      </ul>
    </section>
  );
}

/** One sentence: who wins on this measure, by how much; a tie; or an area only one image has. */
function verdict(
  row: Row,
  names: string[],
  value: (row: Row, v: number) => string,
  t: TFunction,
): string {
  const present = row.values.filter((v): v is number => v !== null);
  if (present.length < 2) return t('heatmap.compare.onlyOne', { area: row.name });
  if (row.winner === null) {
    return row.kind === 'aoi' ? t('heatmap.compare.tie.aoi', { area: row.name }) : t(`heatmap.compare.tie.${row.kind}`);
  }
  const best = row.values[row.winner] ?? 0;
  const runnerUp = Math.max(...row.values.filter((v, index): v is number => v !== null && index !== row.winner));
  return t(`heatmap.compare.win.${row.kind}`, {
    name: names[row.winner],
    area: row.name,
    value: value(row, best),
    other: value(row, runnerUp),
  });
}
