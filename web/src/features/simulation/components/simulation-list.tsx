import { useInfiniteQuery, useQueries } from '@tanstack/react-query';
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
import { safeFileName, useDownloadFile } from '@/lib/download';

import {
  creativeOptionsQueryOptions,
  isRunning,
  locationOptionsQueryOptions,
  simulationQueryOptions,
  simulationsQueryOptions,
  useBatchSimulations,
  useDeleteSimulation,
  type CreativeOption,
  type ListedSimulation,
  type LocationOption,
  rendersZipRequest,
  type SimulationFilters,
} from '../api/simulations';
import { fitOutcome, locationPanelAspect } from '../lib/aspect';
import { byVisibility, DEFAULT_BACKGROUND } from '../lib/editor';
import { formatAspect, formatPercent, formatRatio } from '../lib/format';
import { FITS, type Fit } from '../lib/types';

import { LocationChecklist } from './pickers';
import { SimulationStatusBadge } from './status-badge';

export type SimulationListProps = {
  /** The address of a saved simulation (the editor). */
  pathOf: (id: string) => string;
  /** The simulation open in the editor, marked in the list. */
  currentId?: string;
  /** Called after the open simulation was deleted. */
  onDeletedCurrent?: () => void;
  /** The creative in the editor: the batch dialog starts with it. */
  currentCreative?: CreativeOption | null;
  /** A viewer of the workspace: no batch, no delete (the renders can still be downloaded). */
  readOnly?: boolean;
};

/**
 * "My Simulations": the saved simulations as cards (render or photo thumbnail, name, creative,
 * location, status, attention once analysed), filtered by creative (then sorted by visibility, to
 * compare locations for one creative) or by location; delete behind a confirmation; the batch
 * action that simulates one creative on several locations.
 */
export function SimulationList({ pathOf, currentId, onDeletedCurrent, currentCreative = null, readOnly = false }: SimulationListProps) {
  const { t } = useTranslation();
  const ids = { creative: useId(), location: useId(), title: useId() };
  const [filters, setFilters] = useState<SimulationFilters>({});
  const [deleting, setDeleting] = useState<ListedSimulation | null>(null);
  const [batchOpen, setBatchOpen] = useState(false);
  // The simulations of the last batch, whose renders the notice follows.
  const [batchIds, setBatchIds] = useState<string[] | null>(null);
  const list = useInfiniteQuery({ ...simulationsQueryOptions(filters), placeholderData: (previous) => previous });
  const creatives = useInfiniteQuery(creativeOptionsQueryOptions(''));
  const locations = useInfiniteQuery(locationOptionsQueryOptions(''));
  const remove = useDeleteSimulation();

  const items = useMemo(() => {
    const all = list.data?.pages.flatMap((page) => page.items) ?? [];
    return filters.creative_id ? [...all].sort(byVisibility) : all;
  }, [list.data, filters.creative_id]);
  const creativeOptions: CreativeOption[] = creatives.data?.pages.flatMap((page) => page.items) ?? [];
  // The editor's creative may lie beyond the first page of the select.
  const batchCreatives = currentCreative && !creativeOptions.some((c) => c.id === currentCreative.id) ? [currentCreative, ...creativeOptions] : creativeOptions;
  const locationOptions = locations.data?.pages.flatMap((page) => page.items) ?? [];
  // The archive is named after the filter: "Rendus - Été 2027", "Rendus - Lyon Part-Dieu".
  const filterName =
    creativeOptions.find((creative) => creative.id === filters.creative_id)?.name ??
    locationOptions.find((location) => location.id === filters.location_id)?.name;
  const zipStem = filterName ? `${t('simulation.zip.fileName')} - ${filterName}` : t('simulation.zip.fileName');

  return (
    <section className="sim-list" aria-labelledby={ids.title} data-testid="simulation-list">
      <header className="sim-list__header">
        <h2 id={ids.title} className="sim-list__title">
          {t('simulation.list.title')}
        </h2>
        {readOnly ? null : (
          <Button variant="secondary" onClick={() => setBatchOpen(true)} data-testid="open-batch">
            {t('simulation.batch.open')}
          </Button>
        )}
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
        <RendersZipButton simulations={items} fileStem={zipStem} />
      </div>
      {batchIds ? <BatchProgress ids={batchIds} /> : null}
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
              onDelete={readOnly ? undefined : () => setDeleting(simulation)}
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
          creativeId={currentCreative?.id ?? filters.creative_id ?? ''}
          creatives={batchCreatives}
          onClose={() => setBatchOpen(false)}
          onDone={(creativeId, ids) => {
            setBatchOpen(false);
            setFilters({ creative_id: creativeId });
            setBatchIds(ids);
          }}
        />
      ) : null}
    </section>
  );
}

function SimulationCard({ simulation, href, current, onDelete }: { simulation: ListedSimulation; href: string; current: boolean; onDelete?: () => void }) {
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
          {onDelete ? (
            <Button variant="ghost" size="sm" className="sim-card__delete" onClick={onDelete} aria-label={t('simulation.list.deleteOne', { name: simulation.name })} data-testid="delete-simulation">
              {t('common.delete')}
            </Button>
          ) : null}
        </div>
      </div>
    </li>
  );
}

type BatchDialogProps = {
  creativeId: string;
  creatives: CreativeOption[];
  onClose: () => void;
  onDone: (creativeId: string, ids: string[]) => void;
};

/**
 * One creative on several locations at once (`POST /simulations/batch`). There is no preview of
 * each render here, so the fit is chosen explicitly (contain by default: nothing of the creative
 * is cut off, docs/help) and every location whose panel has another shape than the creative says
 * what the chosen fit will do to it.
 */
function BatchDialog({ creativeId: initial, creatives, onClose, onDone }: BatchDialogProps) {
  const { t, i18n } = useTranslation();
  const ids = { creative: useId(), fit: useId(), background: useId() };
  const [creativeId, setCreativeId] = useState(initial);
  const [fit, setFit] = useState<Fit>('contain');
  const [background, setBackground] = useState(DEFAULT_BACKGROUND);
  const [selected, setSelected] = useState<ReadonlyMap<string, LocationOption>>(new Map());
  const [missing, setMissing] = useState<string | null>(null);
  const batch = useBatchSimulations();
  const fields = isApiError(batch.error) ? batch.error.fields : {};
  const creative = creatives.find((c) => c.id === creativeId) ?? null;
  const creativeAspect = creative && creative.media.height > 0 ? creative.media.width / creative.media.height : null;

  const toggle = (location: LocationOption) =>
    setSelected((current) => {
      const next = new Map(current);
      if (next.has(location.id)) next.delete(location.id);
      else next.set(location.id, location);
      return next;
    });

  /** The warning of a location whose panel is not the creative's shape. */
  const noteOf = (location: LocationOption): string | null => {
    const panel = locationPanelAspect(location);
    if (creativeAspect === null || panel === null) return null;
    const outcome = fitOutcome(creativeAspect, panel, fit);
    if (!outcome) return null;
    return t(`simulation.batch.mismatch.${outcome.kind}`, {
      creative: formatAspect(creativeAspect, i18n.language),
      panel: formatAspect(panel, i18n.language),
      share: formatPercent(outcome.share, i18n.language),
    });
  };
  const mismatched = [...selected.values()].filter((location) => noteOf(location) !== null).length;

  const submit = () => {
    if (!creativeId) return setMissing('creative');
    if (selected.size === 0) return setMissing('locations');
    setMissing(null);
    batch.mutate(
      { creative_id: creativeId, location_ids: [...selected.keys()], fit, ...(fit === 'contain' ? { background } : {}) },
      { onSuccess: (answer) => onDone(creativeId, answer.items.map((item) => item.id)) },
    );
  };
  const fieldError = fields.location_ids ?? fields.creative_id ?? fields.fit ?? fields.background;
  return (
    <Dialog
      title={t('simulation.batch.title')}
      onClose={onClose}
      className="sim-batch"
      footer={
        <>
          {/* Beside the button that starts the renders, whatever the list's scroll. */}
          {mismatched > 0 ? (
            <p className="sim-warning sim-batch__warning" role="status" data-testid="batch-mismatch">
              {t('simulation.batch.mismatchCount', { count: mismatched })}
            </p>
          ) : null}
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
        <Label htmlFor={ids.creative}>{t('simulation.config.creative')}</Label>
        <Select id={ids.creative} value={creativeId} onChange={(event) => setCreativeId(event.target.value)} data-testid="batch-creative">
          <option value="">{t('simulation.config.selectCreative')}</option>
          {creatives.map((option) => (
            <option key={option.id} value={option.id}>
              {option.name}
            </option>
          ))}
        </Select>
      </div>
      <fieldset className="sim-fieldset" data-testid="batch-fit">
        <legend className="ui-label">{t('simulation.config.fit')}</legend>
        <div className="sim-fits">
          {FITS.map((option) => (
            <label key={option} className="sim-fit">
              <input type="radio" name={ids.fit} value={option} checked={fit === option} onChange={() => setFit(option)} />
              <span className="sim-fit__text">
                <span className="sim-fit__name">{t(`simulation.config.fits.${option}`)}</span>
                <span className="sim-fit__help">{t(`simulation.config.fitHelp.${option}`)}</span>
              </span>
            </label>
          ))}
        </div>
        <p className="field__hint">{t('simulation.batch.fitDefault')}</p>
        {fit === 'contain' ? (
          <div className="sim-colour">
            <Label htmlFor={ids.background}>{t('simulation.config.background')}</Label>
            <input id={ids.background} type="color" value={background} onChange={(event) => setBackground(event.target.value)} />
            <span className="field__hint">{background}</span>
          </div>
        ) : null}
      </fieldset>
      <LocationChecklist selected={new Set(selected.keys())} onToggle={toggle} noteOf={noteOf} />
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

/**
 * The last batch's notice: how many renders have finished, until all have (then how many
 * failed, if any). It reads the simulations' detail caches, which the live events patch and
 * refresh (api/live-updates.ts); a slow poll is the safety net if the stream is down.
 */
function BatchProgress({ ids }: { ids: string[] }) {
  const { t } = useTranslation();
  const results = useQueries({
    queries: ids.map((id) => ({
      ...simulationQueryOptions(id),
      // Up to 50 of them: every 30 s rather than the editor's 10 s, and only while rendering.
      refetchInterval: (query: { state: { data?: { status: ListedSimulation['status'] } } }) =>
        query.state.data && isRunning(query.state.data.status) ? 30_000 : false,
    })),
  });
  // A simulation not known yet counts as running; one that is gone (deleted) as finished.
  const running = results.filter((result) => !result.isError && (!result.data || isRunning(result.data.status))).length;
  const failed = results.filter((result) => result.data?.status === 'failed').length;
  const count = ids.length;
  const text =
    running > 0
      ? t('simulation.batch.progress', { count, finished: count - running })
      : failed > 0
        ? t('simulation.batch.failed', { count: failed, total: count })
        : t('simulation.batch.finished', { count });
  const finished = results.flatMap((result) => (result.data ? [result.data] : []));
  return (
    <div className="sim-notice" data-testid="batch-progress" data-running={running}>
      {running > 0 ? (
        <span className="ui-spinner ui-spinner--sm" aria-hidden="true">
          <span className="ui-spinner__circle" />
        </span>
      ) : null}
      <span role="status">{text}</span>
      {running === 0 ? (
        <RendersZipButton simulations={finished} fileStem={`${t('simulation.zip.fileName')} - ${finished[0]?.creative?.name ?? ''}`} />
      ) : null}
    </div>
  );
}

/** Most renders in one ZIP (the server's limit, a batch's worth). */
const MAX_ZIP = 50;

/**
 * "Download the renders (ZIP)": the renders of these simulations (those rendered, the first 50),
 * named after their creative and location. Hidden while none is rendered.
 */
function RendersZipButton({ simulations, fileStem }: { simulations: Pick<ListedSimulation, 'id' | 'status'>[]; fileStem: string }) {
  const { t } = useTranslation();
  const download = useDownloadFile();
  const done = simulations.filter((simulation) => simulation.status === 'done').slice(0, MAX_ZIP);
  if (done.length === 0) return null;
  const { path, init } = rendersZipRequest(done.map((simulation) => simulation.id));
  return (
    <span className="sim-zip">
      <Button
        variant="secondary"
        size="sm"
        onClick={() => download.mutate({ path, init, fileName: `${safeFileName(fileStem)}.zip` })}
        disabled={download.isPending}
        aria-busy={download.isPending}
        data-testid="download-renders-zip"
      >
        {download.isPending ? t('simulation.zip.preparing') : t('simulation.zip.download', { count: done.length })}
      </Button>
      {download.isError ? (
        <span className="form-error" role="alert">
          {t(apiErrorKey(download.error))}
        </span>
      ) : null}
    </span>
  );
}
