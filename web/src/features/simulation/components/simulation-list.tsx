import { useInfiniteQuery } from '@tanstack/react-query';
import { useId, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { ConfirmDialog, Dialog } from '@/components/ui/dialog';
import { Label } from '@/components/ui/label';
import { Select } from '@/components/ui/select';
import { Spinner } from '@/components/ui/spinner';
import { apiErrorKey, fieldErrorKey, isApiError } from '@/lib/api';

import {
  creativeOptionsQueryOptions,
  locationOptionsQueryOptions,
  simulationsQueryOptions,
  useBatchSimulations,
  useDeleteSimulation,
  type ListedSimulation,
  type SimulationFilters,
} from '../api/simulations';
import { byVisibility } from '../lib/editor';
import { formatPercent, formatRatio } from '../lib/format';

import { LocationChecklist } from './pickers';
import { SimulationStatusBadge } from './status-badge';

export type SimulationListProps = {
  /** The address of a saved simulation (the editor). */
  pathOf: (id: string) => string;
  /** The simulation open in the editor, marked in the list. */
  currentId?: string;
  /** Called after the open simulation was deleted. */
  onDeletedCurrent?: () => void;
};

/**
 * "My Simulations": the saved simulations as cards (render or photo thumbnail, name, creative,
 * location, status, attention once analysed), filtered by creative (then sorted by visibility, to
 * compare locations for one creative) or by location; delete behind a confirmation; the batch
 * action that simulates one creative on several locations.
 */
export function SimulationList({ pathOf, currentId, onDeletedCurrent }: SimulationListProps) {
  const { t } = useTranslation();
  const ids = { creative: useId(), location: useId(), title: useId() };
  const [filters, setFilters] = useState<SimulationFilters>({});
  const [deleting, setDeleting] = useState<ListedSimulation | null>(null);
  const [batchOpen, setBatchOpen] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const list = useInfiniteQuery({ ...simulationsQueryOptions(filters), placeholderData: (previous) => previous });
  const creatives = useInfiniteQuery(creativeOptionsQueryOptions(''));
  const locations = useInfiniteQuery(locationOptionsQueryOptions(''));
  const remove = useDeleteSimulation();

  const items = useMemo(() => {
    const all = list.data?.pages.flatMap((page) => page.items) ?? [];
    return filters.creative_id ? [...all].sort(byVisibility) : all;
  }, [list.data, filters.creative_id]);
  const creativeOptions = creatives.data?.pages.flatMap((page) => page.items) ?? [];
  const locationOptions = locations.data?.pages.flatMap((page) => page.items) ?? [];

  return (
    <section className="sim-list" aria-labelledby={ids.title} data-testid="simulation-list">
      <header className="sim-list__header">
        <h2 id={ids.title} className="sim-list__title">
          {t('simulation.list.title')}
        </h2>
        <Button variant="secondary" onClick={() => setBatchOpen(true)} data-testid="open-batch">
          {t('simulation.batch.open')}
        </Button>
      </header>
      <div className="sim-list__filters">
        <div className="field">
          <Label htmlFor={ids.creative}>{t('simulation.list.filterCreative')}</Label>
          <Select
            id={ids.creative}
            value={filters.creative_id ?? ''}
            onChange={(event) => setFilters({ creative_id: event.target.value || undefined })}
            data-testid="filter-creative"
          >
            <option value="">{t('simulation.list.all')}</option>
            {creativeOptions.map((creative) => (
              <option key={creative.id} value={creative.id}>
                {creative.name}
              </option>
            ))}
          </Select>
        </div>
        <div className="field">
          <Label htmlFor={ids.location}>{t('simulation.list.filterLocation')}</Label>
          <Select
            id={ids.location}
            value={filters.location_id ?? ''}
            onChange={(event) => setFilters({ location_id: event.target.value || undefined })}
            data-testid="filter-location"
          >
            <option value="">{t('simulation.list.all')}</option>
            {locationOptions.map((location) => (
              <option key={location.id} value={location.id}>
                {location.name}
              </option>
            ))}
          </Select>
        </div>
        {filters.creative_id ? <p className="field__hint sim-list__sorted">{t('simulation.list.sortedByVisibility')}</p> : null}
      </div>
      {notice ? (
        <p className="sim-notice" role="status">
          {notice}
        </p>
      ) : null}
      {list.isPending ? (
        <Spinner />
      ) : list.isError ? (
        <Banner variant="error">{t(apiErrorKey(list.error))}</Banner>
      ) : items.length === 0 ? (
        <p className="sim-empty" data-testid="simulations-empty">
          {filters.creative_id || filters.location_id ? t('simulation.list.noMatch') : t('simulation.list.empty')}
        </p>
      ) : (
        <ul className="sim-cards" aria-labelledby={ids.title}>
          {items.map((simulation) => (
            <SimulationCard
              key={simulation.id}
              simulation={simulation}
              href={pathOf(simulation.id)}
              current={simulation.id === currentId}
              onDelete={() => setDeleting(simulation)}
            />
          ))}
        </ul>
      )}
      {list.hasNextPage ? (
        <Button variant="secondary" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
          {t('common.loadMore')}
        </Button>
      ) : null}
      {deleting ? (
        <ConfirmDialog
          title={t('simulation.list.deleteTitle')}
          confirmLabel={t('common.delete')}
          busy={remove.isPending}
          error={remove.isError ? t(apiErrorKey(remove.error)) : null}
          onCancel={() => {
            remove.reset();
            setDeleting(null);
          }}
          onConfirm={() =>
            remove.mutate(deleting.id, {
              onSuccess: () => {
                if (deleting.id === currentId) onDeletedCurrent?.();
                setDeleting(null);
              },
            })
          }
        >
          <p>{t('simulation.list.deleteBody', { name: deleting.name })}</p>
        </ConfirmDialog>
      ) : null}
      {batchOpen ? (
        <BatchDialog
          creativeId={filters.creative_id ?? ''}
          creatives={creativeOptions}
          onClose={() => setBatchOpen(false)}
          onDone={(creativeId, count) => {
            setBatchOpen(false);
            setFilters({ creative_id: creativeId });
            setNotice(t('simulation.batch.done', { count }));
          }}
        />
      ) : null}
    </section>
  );
}

function SimulationCard({ simulation, href, current, onDelete }: { simulation: ListedSimulation; href: string; current: boolean; onDelete: () => void }) {
  const { t, i18n } = useTranslation();
  const thumbnail = simulation.output?.urls.thumbnail ?? simulation.location?.photo?.urls.thumbnail ?? null;
  const attention = simulation.attention;
  return (
    <li className={current ? 'sim-card sim-card--current' : 'sim-card'} data-testid="simulation-card" data-id={simulation.id}>
      <Link to={href} className="sim-card__media" tabIndex={-1} aria-hidden="true">
        {thumbnail ? <img className="sim-card__image" src={thumbnail} alt="" /> : <span className="sim-card__image sim-picker__thumb--empty" />}
      </Link>
      <div className="sim-card__body">
        <h3 className="sim-card__name">
          <Link to={href} aria-current={current ? 'page' : undefined}>
            {simulation.name}
          </Link>
        </h3>
        <p className="sim-card__meta">
          <span>{t('simulation.list.creative', { name: simulation.creative?.name ?? '—' })}</span>
          <span>
            {t('simulation.list.location', {
              name: [simulation.location?.name, simulation.location?.city].filter(Boolean).join(', ') || '—',
            })}
          </span>
        </p>
        <div className="sim-card__footer">
          <SimulationStatusBadge status={simulation.status} />
          {attention?.status === 'done' && attention.panel_share !== null ? (
            <span className="sim-card__attention" data-testid="card-attention">
              {t('simulation.list.attention', {
                share: formatPercent(attention.panel_share, i18n.language),
                visibility: formatRatio(attention.visibility ?? 0, i18n.language),
              })}
            </span>
          ) : null}
          <Button variant="ghost" size="sm" className="sim-card__delete" onClick={onDelete} aria-label={t('simulation.list.deleteOne', { name: simulation.name })} data-testid="delete-simulation">
            {t('common.delete')}
          </Button>
        </div>
      </div>
    </li>
  );
}

type BatchDialogProps = {
  creativeId: string;
  creatives: { id: string; name: string }[];
  onClose: () => void;
  onDone: (creativeId: string, count: number) => void;
};

/** One creative on several locations at once (`POST /simulations/batch`). */
function BatchDialog({ creativeId: initial, creatives, onClose, onDone }: BatchDialogProps) {
  const { t } = useTranslation();
  const creativeField = useId();
  const [creativeId, setCreativeId] = useState(initial);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [missing, setMissing] = useState<string | null>(null);
  const batch = useBatchSimulations();
  const fields = isApiError(batch.error) ? batch.error.fields : {};
  const toggle = (id: string) =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const submit = () => {
    if (!creativeId) return setMissing('creative');
    if (selected.size === 0) return setMissing('locations');
    setMissing(null);
    batch.mutate({ creative_id: creativeId, location_ids: [...selected] }, { onSuccess: (answer) => onDone(creativeId, answer.items.length) });
  };
  const fieldError = fields.location_ids ?? fields.creative_id;
  return (
    <Dialog
      title={t('simulation.batch.title')}
      onClose={onClose}
      className="sim-batch"
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button onClick={submit} disabled={batch.isPending} data-testid="batch-submit">
            {batch.isPending ? t('simulation.batch.running') : t('simulation.batch.submit', { count: selected.size })}
          </Button>
        </>
      }
    >
      <p className="field__hint">{t('simulation.batch.help')}</p>
      <div className="field">
        <Label htmlFor={creativeField}>{t('simulation.config.creative')}</Label>
        <Select id={creativeField} value={creativeId} onChange={(event) => setCreativeId(event.target.value)} data-testid="batch-creative">
          <option value="">{t('simulation.config.selectCreative')}</option>
          {creatives.map((creative) => (
            <option key={creative.id} value={creative.id}>
              {creative.name}
            </option>
          ))}
        </Select>
      </div>
      <LocationChecklist selected={selected} onToggle={toggle} />
      {missing ? (
        <p className="form-error" role="alert">
          {t(missing === 'creative' ? 'simulation.batch.needCreative' : 'simulation.batch.needLocations')}
        </p>
      ) : null}
      {batch.isError ? (
        <p className="form-error" role="alert">
          {fieldError ? t(fieldErrorKey(fieldError)) : t(apiErrorKey(batch.error))}
        </p>
      ) : null}
    </Dialog>
  );
}
