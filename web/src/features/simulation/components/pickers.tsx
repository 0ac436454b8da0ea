import { useInfiniteQuery } from '@tanstack/react-query';
import { useEffect, useId, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Spinner } from '@/components/ui/spinner';
import { apiErrorKey } from '@/lib/api';
import { cn } from '@/lib/cn';

import {
  creativeOptionsQueryOptions,
  locationOptionsQueryOptions,
  type CreativeOption,
  type LocationOption,
} from '../api/simulations';
import { locationProblem } from '../lib/editor';

/** `value`, 250 ms after it last changed (one request per pause in typing, not per key). */
function useDebounced(value: string, delay = 250): string {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), delay);
    return () => clearTimeout(timer);
  }, [value, delay]);
  return debounced;
}

type Choice = { id: string; name: string; detail: string | null; thumbnail: string | null; problem: string | null };

type PickerFieldProps = {
  label: string;
  /** What is chosen, or null. */
  value: Choice | null;
  placeholder: string;
  chooseLabel: string;
  changeLabel: string;
  error?: string;
  testId: string;
  renderDialog: (close: () => void) => ReactNode;
};

/** A field showing the chosen item (thumbnail, name) and a button opening the search dialog. */
function PickerField({ label, value, placeholder, chooseLabel, changeLabel, error, testId, renderDialog }: PickerFieldProps) {
  const [open, setOpen] = useState(false);
  const labelId = useId();
  const errorId = useId();
  return (
    <div className="field sim-picker" data-testid={testId} data-selected={value?.id ?? ''}>
      <span id={labelId} className="ui-label">
        {label}
      </span>
      <div className={cn('sim-picker__value', error && 'sim-picker__value--error')}>
        {value?.thumbnail ? <img className="sim-picker__thumb" src={value.thumbnail} alt="" /> : <span className="sim-picker__thumb sim-picker__thumb--empty" aria-hidden="true" />}
        <span className="sim-picker__text">
          <span className="sim-picker__name">{value ? value.name : placeholder}</span>
          {value?.detail ? <span className="sim-picker__detail">{value.detail}</span> : null}
        </span>
        <Button
          variant="secondary"
          size="sm"
          onClick={() => setOpen(true)}
          aria-describedby={error ? `${labelId} ${errorId}` : labelId}
          data-testid={`${testId}-open`}
        >
          {value ? changeLabel : chooseLabel}
        </Button>
      </div>
      {error ? (
        <p id={errorId} className="field__error" role="alert">
          {error}
        </p>
      ) : null}
      {open ? renderDialog(() => setOpen(false)) : null}
    </div>
  );
}

type PickerDialogProps = {
  title: string;
  searchLabel: string;
  emptyText: string;
  query: string;
  onQuery: (q: string) => void;
  choices: Choice[] | undefined;
  pending: boolean;
  error: unknown;
  selectedId: string | null;
  onPick: (id: string) => void;
  onClose: () => void;
  hasMore: boolean;
  onMore: () => void;
  testId: string;
};

/** A dialog with a search field and the matching items as buttons (disabled ones say why). */
function PickerDialog(props: PickerDialogProps) {
  const { title, searchLabel, emptyText, query, onQuery, choices, pending, error, selectedId, onPick, onClose, hasMore, onMore, testId } = props;
  const { t } = useTranslation();
  const searchId = useId();
  return (
    <Dialog title={title} onClose={onClose} className="sim-picker-dialog">
      <div className="field">
        <Label htmlFor={searchId}>{searchLabel}</Label>
        <Input id={searchId} type="search" value={query} onChange={(event) => onQuery(event.target.value)} data-autofocus autoComplete="off" />
      </div>
      {error ? (
        <p role="alert" className="form-error">
          {t(apiErrorKey(error))}
        </p>
      ) : pending && !choices ? (
        <Spinner />
      ) : choices && choices.length === 0 ? (
        <p className="field__hint">{emptyText}</p>
      ) : (
        <ul className="sim-options" data-testid={testId}>
          {choices?.map((choice) => (
            <li key={choice.id}>
              <button
                type="button"
                className={cn('sim-option', choice.id === selectedId && 'sim-option--selected')}
                aria-pressed={choice.id === selectedId}
                disabled={Boolean(choice.problem)}
                onClick={() => {
                  onPick(choice.id);
                  onClose();
                }}
                data-testid="picker-option"
              >
                {choice.thumbnail ? <img className="sim-option__thumb" src={choice.thumbnail} alt="" /> : <span className="sim-option__thumb sim-picker__thumb--empty" aria-hidden="true" />}
                <span className="sim-option__text">
                  <span className="sim-option__name">{choice.name}</span>
                  {choice.problem ? <span className="sim-option__problem">{choice.problem}</span> : choice.detail ? <span className="sim-option__detail">{choice.detail}</span> : null}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {hasMore ? (
        <Button variant="secondary" onClick={onMore}>
          {t('common.loadMore')}
        </Button>
      ) : null}
    </Dialog>
  );
}

function creativeChoice(creative: CreativeOption): Choice {
  return {
    id: creative.id,
    name: creative.name,
    detail: `${creative.media.width} × ${creative.media.height}`,
    thumbnail: creative.media.urls.thumbnail,
    problem: null,
  };
}

type CreativePickerProps = {
  value: CreativeOption | null;
  onChange: (creative: CreativeOption) => void;
  error?: string;
};

export function CreativePicker({ value, onChange, error }: CreativePickerProps) {
  const { t } = useTranslation();
  return (
    <PickerField
      label={t('simulation.config.creative')}
      value={value ? creativeChoice(value) : null}
      placeholder={t('simulation.config.noCreative')}
      chooseLabel={t('simulation.config.selectCreative')}
      changeLabel={t('simulation.config.change')}
      error={error}
      testId="creative-picker"
      renderDialog={(close) => <CreativeDialog selectedId={value?.id ?? null} onPick={onChange} onClose={close} />}
    />
  );
}

function CreativeDialog({ selectedId, onPick, onClose }: { selectedId: string | null; onPick: (c: CreativeOption) => void; onClose: () => void }) {
  const { t } = useTranslation();
  const [query, setQuery] = useState('');
  const deferred = useDebounced(query.trim());
  const list = useInfiniteQuery({ ...creativeOptionsQueryOptions(deferred), placeholderData: (previous) => previous });
  const items = list.data?.pages.flatMap((page) => page.items);
  return (
    <PickerDialog
      title={t('simulation.config.selectCreative')}
      searchLabel={t('simulation.config.searchCreative')}
      emptyText={t('simulation.config.noCreatives')}
      query={query}
      onQuery={setQuery}
      choices={items?.map(creativeChoice)}
      pending={list.isPending}
      error={list.error}
      selectedId={selectedId}
      onPick={(id) => {
        const creative = items?.find((item) => item.id === id);
        if (creative) onPick(creative);
      }}
      onClose={onClose}
      hasMore={list.hasNextPage}
      onMore={() => void list.fetchNextPage()}
      testId="creative-options"
    />
  );
}

function useLocationChoice() {
  const { t } = useTranslation();
  return (location: LocationOption): Choice => {
    const problem = locationProblem(location);
    return {
      id: location.id,
      name: location.name,
      detail: [location.postal_code, location.city].filter(Boolean).join(' ') || null,
      thumbnail: location.photo?.urls.thumbnail ?? null,
      problem: problem ? t(`simulation.config.locationProblem.${problem}`) : null,
    };
  };
}

type LocationPickerProps = {
  value: LocationOption | null;
  onChange: (location: LocationOption) => void;
  error?: string;
};

export function LocationPicker({ value, onChange, error }: LocationPickerProps) {
  const { t } = useTranslation();
  const toChoice = useLocationChoice();
  return (
    <PickerField
      label={t('simulation.config.location')}
      value={value ? toChoice(value) : null}
      placeholder={t('simulation.config.noLocation')}
      chooseLabel={t('simulation.config.selectLocation')}
      changeLabel={t('simulation.config.change')}
      error={error}
      testId="location-picker"
      renderDialog={(close) => <LocationDialog selectedId={value?.id ?? null} onPick={onChange} onClose={close} />}
    />
  );
}

function LocationDialog({ selectedId, onPick, onClose }: { selectedId: string | null; onPick: (l: LocationOption) => void; onClose: () => void }) {
  const { t } = useTranslation();
  const toChoice = useLocationChoice();
  const [query, setQuery] = useState('');
  const deferred = useDebounced(query.trim());
  const list = useInfiniteQuery({ ...locationOptionsQueryOptions(deferred), placeholderData: (previous) => previous });
  const items = list.data?.pages.flatMap((page) => page.items);
  return (
    <PickerDialog
      title={t('simulation.config.selectLocation')}
      searchLabel={t('simulation.config.searchLocation')}
      emptyText={t('simulation.config.noLocations')}
      query={query}
      onQuery={setQuery}
      choices={items?.map(toChoice)}
      pending={list.isPending}
      error={list.error}
      selectedId={selectedId}
      onPick={(id) => {
        const location = items?.find((item) => item.id === id);
        if (location) onPick(location);
      }}
      onClose={onClose}
      hasMore={list.hasNextPage}
      onMore={() => void list.fetchNextPage()}
      testId="location-options"
    />
  );
}

type LocationChecklistProps = {
  selected: ReadonlySet<string>;
  /** A location was ticked or unticked (the dialog keeps the chosen ones, to warn about them). */
  onToggle: (location: LocationOption) => void;
  /** A warning about a usable location (shown under its name), or null. */
  noteOf?: (location: LocationOption) => string | null;
};

/**
 * Several locations at once (the batch dialog): checkboxes; unusable ones disabled with the
 * reason, usable ones with the caller's warning, if any.
 */
export function LocationChecklist({ selected, onToggle, noteOf }: LocationChecklistProps) {
  const { t } = useTranslation();
  const toChoice = useLocationChoice();
  const searchId = useId();
  const [query, setQuery] = useState('');
  const deferred = useDebounced(query.trim());
  const list = useInfiniteQuery({ ...locationOptionsQueryOptions(deferred), placeholderData: (previous) => previous });
  const items = list.data?.pages.flatMap((page) => page.items);
  return (
    <div className="sim-checklist">
      <div className="field">
        <Label htmlFor={searchId}>{t('simulation.config.searchLocation')}</Label>
        <Input id={searchId} type="search" value={query} onChange={(event) => setQuery(event.target.value)} autoComplete="off" />
      </div>
      {list.isPending ? <Spinner /> : null}
      {items && items.length === 0 ? <p className="field__hint">{t('simulation.config.noLocations')}</p> : null}
      <ul className="sim-options" data-testid="batch-locations">
        {items?.map((location) => {
          const choice = toChoice(location);
          const note = choice.problem ? null : (noteOf?.(location) ?? null);
          return (
            <li key={choice.id}>
              <label className={cn('sim-option', selected.has(choice.id) && 'sim-option--selected', choice.problem && 'sim-option--disabled')} data-testid="batch-location">
                <input type="checkbox" checked={selected.has(choice.id)} disabled={Boolean(choice.problem)} onChange={() => onToggle(location)} />
                {choice.thumbnail ? <img className="sim-option__thumb" src={choice.thumbnail} alt="" /> : <span className="sim-option__thumb sim-picker__thumb--empty" aria-hidden="true" />}
                <span className="sim-option__text">
                  <span className="sim-option__name">{choice.name}</span>
                  {choice.problem ? <span className="sim-option__problem">{choice.problem}</span> : choice.detail ? <span className="sim-option__detail">{choice.detail}</span> : null}
                  {note ? (
                    <span className="sim-option__warning" data-testid="aspect-warning">
                      {note}
                    </span>
                  ) : null}
                </span>
              </label>
            </li>
          );
        })}
      </ul>
      {list.hasNextPage ? (
        <Button variant="secondary" onClick={() => void list.fetchNextPage()}>
          {t('common.loadMore')}
        </Button>
      ) : null}
    </div>
  );
}
