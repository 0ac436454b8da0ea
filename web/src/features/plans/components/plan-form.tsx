//! A new campaign plan: its name, the creative, the first and last days and the sites (chosen
//! here, or brought from a selection in the locations list). The totals move as sites are added,
//! computed with the server's rules; the server then makes (or reuses) each site's simulation,
//! renders it and measures its attention.
import { useInfiniteQuery, useQueries } from '@tanstack/react-query';
import { type FormEvent, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';

import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Select } from '@/components/ui/select';
import { creativesInfiniteQueryOptions } from '@/features/creatives/api/creatives';
import { type Location, locationQueryOptions } from '@/features/locations/api/locations';
import { apiErrorKey, fieldErrorKey, isApiError } from '@/lib/api';

import { useCreatePlan } from '../api/plans';
import { draftTotals } from '../lib/totals';
import { PlanFigures } from './plan-figures';
import { SitePicker } from './site-picker';

export type PlanFormProps = {
  /** Locations chosen before the form opened (the locations list's selection). */
  initialLocationIds?: readonly string[];
};

export function PlanForm({ initialLocationIds = [] }: PlanFormProps) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const create = useCreatePlan();
  const baseId = useId();
  const id = (field: string) => `${baseId}-${field}`;
  const creatives = useInfiniteQuery(creativesInfiniteQueryOptions());
  const brought = useQueries({ queries: initialLocationIds.map((lid) => locationQueryOptions(lid)) });
  const [name, setName] = useState('');
  const [creativeId, setCreativeId] = useState('');
  const [start, setStart] = useState('');
  const [end, setEnd] = useState('');
  const [picked, setPicked] = useState<Location[] | null>(null);
  // Until the user changes the sites, they are the ones brought from the list, as they load.
  const chosen = picked ?? brought.flatMap((q) => (q.data ? [q.data] : []));
  const totals = draftTotals(chosen, start, end);
  const fields = isApiError(create.error) ? create.error.fields : {};
  const otherError = create.isError && Object.keys(fields).length === 0;

  const errorOf = (field: string) =>
    fields[field] ? (
      <p id={`${id(field)}-error`} className="form-error" data-testid={`error-${field}`}>
        {t(fieldErrorKey(fields[field]))}
      </p>
    ) : null;
  const described = (field: string) => (fields[field] ? `${id(field)}-error` : undefined);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    create.mutate(
      {
        name: name.trim(),
        creative_id: creativeId || (null as unknown as string),
        location_ids: chosen.map((l) => l.id),
        start_date: start,
        end_date: end,
      },
      { onSuccess: (plan) => void navigate(`/plans/${encodeURIComponent(plan.id)}`) },
    );
  };

  return (
    <form className="plan-form" onSubmit={submit} noValidate data-testid="plan-form">
      {create.isError ? <Banner variant="error">{otherError ? t(apiErrorKey(create.error)) : t('apiErrors.validation_failed')}</Banner> : null}
      <fieldset className="form-section">
        <div className="field">
          <Label htmlFor={id('name')}>
            {t('plans.fields.name')}
            <span aria-hidden="true"> *</span>
          </Label>
          <Input id={id('name')} value={name} maxLength={200} required aria-invalid={fields.name ? true : undefined} aria-describedby={described('name')} onChange={(e) => setName(e.target.value)} />
          {errorOf('name')}
        </div>
        <div className="field">
          <Label htmlFor={id('creative_id')}>
            {t('plans.fields.creative')}
            <span aria-hidden="true"> *</span>
          </Label>
          <Select
            id={id('creative_id')}
            value={creativeId}
            aria-invalid={fields.creative_id ? true : undefined}
            aria-describedby={described('creative_id')}
            onChange={(e) => setCreativeId(e.target.value)}
            data-testid="plan-creative"
          >
            <option value="">{t('plans.chooseCreative')}</option>
            {(creatives.data?.pages ?? [])
              .flatMap((page) => page.items)
              .map((creative) => (
                <option key={creative.id} value={creative.id}>
                  {creative.name}
                </option>
              ))}
          </Select>
          {errorOf('creative_id')}
        </div>
        <div className="form-grid">
          <div className="field">
            <Label htmlFor={id('start_date')}>{t('plans.fields.start_date')}</Label>
            <Input id={id('start_date')} type="date" value={start} aria-invalid={fields.start_date ? true : undefined} aria-describedby={described('start_date')} onChange={(e) => setStart(e.target.value)} />
            {errorOf('start_date')}
          </div>
          <div className="field">
            <Label htmlFor={id('end_date')}>{t('plans.fields.end_date')}</Label>
            <Input id={id('end_date')} type="date" value={end} min={start || undefined} aria-invalid={fields.end_date ? true : undefined} aria-describedby={described('end_date')} onChange={(e) => setEnd(e.target.value)} />
            {errorOf('end_date')}
          </div>
        </div>
      </fieldset>

      <PlanFigures locations={totals.locations} days={totals.days} contacts={totals.contacts} />
      {totals.withoutContacts > 0 ? <p className="plan-form__note">{t('plans.withoutContacts', { count: totals.withoutContacts })}</p> : null}

      <fieldset className="form-section">
        <legend className="form-section__title">{t('plans.fields.locations')}</legend>
        {chosen.length === 0 ? <p className="plan-form__note">{t('plans.noLocations')}</p> : null}
        <ul className="plan-form__chosen" aria-label={t('plans.fields.locations')} data-testid="plan-chosen">
          {chosen.map((location) => (
            <li key={location.id} className="plan-form__chosen-item">
              <span>{location.name}</span>
              <Button variant="ghost" size="sm" aria-label={t('plans.removeSite', { name: location.name })} onClick={() => setPicked(chosen.filter((l) => l.id !== location.id))}>
                ×
              </Button>
            </li>
          ))}
        </ul>
        {errorOf('location_ids')}
        <SitePicker chosen={chosen} onChange={setPicked} />
      </fieldset>

      <div className="form-actions">
        <Button type="submit" disabled={create.isPending} data-testid="create-plan">
          {t('plans.create')}
        </Button>
      </div>
    </form>
  );
}
