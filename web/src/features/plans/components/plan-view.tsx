//! A campaign plan: its period, status and totals, a row per site (contacts, noticed contacts,
//! the first second, reading time, main text), the sites to add or remove, and the exports
//! (Excel and PDF). While the sites are rendered and analysed the page refetches and the figures
//! fill in.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';

import { QueryError } from '@/components/query-error';
import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/dialog';
import { Spinner } from '@/components/ui/spinner';
import type { Location } from '@/features/locations/api/locations';
import { formatPercent } from '@/features/simulation/lib/format';
import { apiErrorKey } from '@/lib/api';
import { safeFileName, useDownloadFile } from '@/lib/download';
import { useWorkspace } from '@/lib/workspace';

import { planExportPath, planQueryOptions, type PlanSite, useDeletePlan, useUpdatePlan } from '../api/plans';
import { formatCount, formatDay, formatSeconds } from '../lib/format';
import { PlanFigures } from './plan-figures';
import { SitePicker } from './site-picker';

function Cell({ value }: { value: string | null }) {
  const { t } = useTranslation();
  return value === null ? <span className="plan-table__unknown">{t('plans.unknown')}</span> : <>{value}</>;
}

export function PlanView({ id }: { id: string }) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const { canEdit } = useWorkspace();
  const query = useQuery(planQueryOptions(id));
  const update = useUpdatePlan(id);
  const remove = useDeletePlan();
  const download = useDownloadFile();
  const [adding, setAdding] = useState(false);
  const [confirming, setConfirming] = useState(false);

  if (query.isPending) return <Spinner />;
  if (query.isError) return <QueryError error={query.error} onRetry={() => void query.refetch()} />;
  const plan = query.data;
  const lang = i18n.language;
  const count = (v: number | null | undefined) => (v === null || v === undefined ? null : formatCount(v, lang));
  const setSites = (ids: string[]) => update.mutate({ location_ids: ids });
  const siteIds = plan.sites.map((s) => s.location_id);
  const legible = (site: PlanSite) => (site.legible === null || site.legible === undefined ? null : t(site.legible ? 'plans.legible.yes' : 'plans.legible.no'));

  return (
    <div className="plan-view" data-testid="plan-view">
      <p className="plan-view__meta">
        {plan.creative_name ? <span>{t('plans.report.creative', { name: plan.creative_name })}</span> : null}
        <span>{t('plans.period', { start: formatDay(plan.start_date, lang), end: formatDay(plan.end_date, lang), count: plan.totals.days })}</span>
        <span className={`badge plan-status plan-status--${plan.status}`} data-testid="plan-status">
          {t(`plans.status.${plan.status}`)}
        </span>
      </p>
      <PlanFigures locations={plan.totals.locations} days={plan.totals.days} contacts={plan.totals.contacts} noticed={plan.totals.noticed ?? null} />
      <p className="plan-view__means">{t('plans.noticedMeans')}</p>
      <p className="plan-view__means plan-view__means--muted">{t('plans.reliability')}</p>

      <div className="plan-view__actions">
        <Button variant="secondary" size="sm" disabled={download.isPending} onClick={() => download.mutate({ path: planExportPath(id, 'xlsx', lang), fileName: `${safeFileName(plan.name)}.xlsx` })} data-testid="plan-export-xlsx">
          {t('plans.exportXlsx')}
        </Button>
        <Button variant="secondary" size="sm" disabled={download.isPending} onClick={() => download.mutate({ path: planExportPath(id, 'pdf', lang), fileName: `${safeFileName(plan.name)}.pdf` })} data-testid="plan-export-pdf">
          {t('plans.exportPdf')}
        </Button>
        {canEdit ? (
          <>
            <Button variant="secondary" size="sm" onClick={() => setAdding((v) => !v)} aria-expanded={adding}>
              {t('plans.addSites')}
            </Button>
            <Button variant="danger" size="sm" onClick={() => setConfirming(true)}>
              {t('plans.delete')}
            </Button>
          </>
        ) : null}
      </div>
      {download.isError ? <Banner variant="error">{t(apiErrorKey(download.error))}</Banner> : null}
      {update.isError ? <Banner variant="error">{t(apiErrorKey(update.error))}</Banner> : null}
      {adding && canEdit ? (
        <SitePicker
          chosen={plan.sites.map((s) => ({ id: s.location_id, name: s.name }) as Location)}
          onChange={(next) => setSites(next.map((l) => l.id))}
        />
      ) : null}

      <div className="plan-table__wrap">
        <table className="plan-table" data-testid="plan-sites">
          <thead>
            <tr>
              <th scope="col">{t('plans.columns.site')}</th>
              <th scope="col">{t('plans.columns.dailyContacts')}</th>
              <th scope="col">{t('plans.columns.contacts')}</th>
              <th scope="col">{t('plans.columns.firstSecond')}</th>
              <th scope="col">{t('plans.columns.noticed')}</th>
              <th scope="col">{t('plans.columns.timeInView')}</th>
              <th scope="col">{t('plans.columns.legible')}</th>
              {canEdit ? <th scope="col" className="plan-table__action" /> : null}
            </tr>
          </thead>
          <tbody>
            {plan.sites.map((site) => (
              <tr key={site.location_id} data-testid="plan-site">
                <th scope="row">
                  <div className="plan-table__site">
                    {site.render ? <img className="plan-table__thumb" src={site.render.urls.thumbnail} alt="" width={site.render.width} height={site.render.height} loading="lazy" /> : null}
                    <span className="plan-table__name">
                      {site.simulation_id ? <Link to={`/simulation/${encodeURIComponent(site.simulation_id)}`}>{site.name}</Link> : site.name}
                      <span className="plan-table__sub">{[site.city, t(`locations.formats.${site.format}`)].filter(Boolean).join(' · ')}</span>
                      {site.status && site.status !== 'done' ? <span className="plan-table__sub">{t(`simulation.status.${site.status}`)}</span> : null}
                    </span>
                  </div>
                </th>
                <td data-label={t('plans.columns.dailyContacts')}>
                  <Cell value={count(site.daily_contacts)} />
                </td>
                <td data-label={t('plans.columns.contacts')}>
                  <Cell value={count(site.contacts)} />
                </td>
                <td data-label={t('plans.columns.firstSecond')}>
                  <Cell value={site.first_second_probability === null || site.first_second_probability === undefined ? null : formatPercent(site.first_second_probability, lang)} />
                </td>
                <td data-label={t('plans.columns.noticed')}>
                  <Cell value={count(site.noticed)} />
                </td>
                <td data-label={t('plans.columns.timeInView')}>
                  <Cell value={site.time_in_view_s === null || site.time_in_view_s === undefined ? null : t('plans.seconds', { seconds: formatSeconds(site.time_in_view_s, lang) })} />
                </td>
                <td data-label={t('plans.columns.legible')}>
                  <Cell value={legible(site)} />
                </td>
                {canEdit ? (
                  <td className="plan-table__action">
                    <Button
                      variant="ghost"
                      size="sm"
                      disabled={update.isPending || plan.sites.length === 1}
                      aria-label={t('plans.removeSite', { name: site.name })}
                      onClick={() => setSites(siteIds.filter((l) => l !== site.location_id))}
                    >
                      ×
                    </Button>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {confirming ? (
        <ConfirmDialog
          title={t('plans.deleteTitle', { name: plan.name })}
          confirmLabel={t('plans.delete')}
          busy={remove.isPending}
          error={remove.isError ? t(apiErrorKey(remove.error)) : undefined}
          onCancel={() => setConfirming(false)}
          onConfirm={() => remove.mutate(id, { onSuccess: () => void navigate('/plans') })}
        >
          <p>{t('plans.deleteBody')}</p>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
