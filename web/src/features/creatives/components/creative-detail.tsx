import { useQuery } from '@tanstack/react-query';
import { useId, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { LeaveDialog } from '@/components/leave-dialog';
import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/dialog';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Spinner } from '@/components/ui/spinner';
import { apiErrorKey, fieldErrorKey, isApiError } from '@/lib/api';
import { isLowResolution, MIN_SHORT_SIDE } from '@/lib/resolution';
import { useToast } from '@/lib/toast';
import { useUnsavedChanges } from '@/lib/use-unsaved-changes';
import { useWorkspace } from '@/lib/workspace';

import { creativeQueryOptions, useDeleteCreative, useUpdateCreative, type Creative } from '../api/creatives';

export type CreativeDetailProps = {
  id: string;
  /** Called once the creative is deleted (e.g. go back to the list). */
  onDeleted: () => void;
};

/** One creative: the full image, its details, rename, edit, delete (a viewer of the workspace reads the details only). */
export function CreativeDetail({ id, onDeleted }: CreativeDetailProps) {
  const { t } = useTranslation();
  const query = useQuery(creativeQueryOptions(id));

  if (query.isPending) return <Spinner />;
  if (query.isError) return <Banner variant="error">{t(apiErrorKey(query.error))}</Banner>;
  return <CreativeView creative={query.data} onDeleted={onDeleted} />;
}

function fieldError(error: unknown, field: string): string | undefined {
  return isApiError(error) ? error.fields[field] : undefined;
}

function CreativeView({ creative, onDeleted }: { creative: Creative; onDeleted: () => void }) {
  const { t, i18n } = useTranslation();
  const number = (value: number) => new Intl.NumberFormat(i18n.language).format(value);
  const update = useUpdateCreative(creative.id);
  const remove = useDeleteCreative();
  const toast = useToast();
  const [confirming, setConfirming] = useState(false);
  const simulations = creative.simulation_count ?? 0;
  const { canEdit } = useWorkspace();

  return (
    <article className="detail">
      <p>
        <Link to="/creatives">{t('creatives.back')}</Link>
      </p>
      <div className="detail__layout">
        <figure className="detail__figure">
          <img
            className="detail__image"
            src={creative.media.urls.preview}
            alt={t('creatives.imageAlt', { name: creative.name })}
            width={creative.media.width}
            height={creative.media.height}
          />
          <figcaption className="detail__caption">
            {t('creatives.dimensions', { width: creative.media.width, height: creative.media.height })}
            {isLowResolution(creative.media) ? (
              <Banner variant="warning" className="detail__warning" data-testid="low-resolution">
                {t('upload.lowResolution', {
                  width: number(creative.media.width),
                  height: number(creative.media.height),
                  min: number(MIN_SHORT_SIDE),
                })}
              </Banner>
            ) : null}
          </figcaption>
        </figure>
        <div className="detail__side">
          {canEdit ? (
            <>
              <RenameField creative={creative} />
              <MetadataForm creative={creative} update={update} />
              <Link
                className="ui-button ui-button--primary ui-button--md"
                to={`/simulation?creative=${encodeURIComponent(creative.id)}`}
                data-testid="simulate-creative"
              >
                {t('creatives.simulate')}
              </Link>
            </>
          ) : (
            <CreativeDetails creative={creative} />
          )}
          <Link
            className="ui-button ui-button--secondary ui-button--md"
            to={`/heatmap/${encodeURIComponent(creative.media.id)}`}
            data-testid="creative-heatmap"
          >
            {t('creatives.heatmap')}
          </Link>
          {canEdit ? (
            <Button variant="danger" onClick={() => setConfirming(true)} data-testid="delete-creative">
              {t('creatives.delete')}
            </Button>
          ) : null}
        </div>
      </div>
      {confirming ? (
        <ConfirmDialog
          title={t('creatives.deleteTitle')}
          confirmLabel={t('common.delete')}
          busy={remove.isPending}
          error={remove.isError ? t(apiErrorKey(remove.error)) : null}
          onCancel={() => {
            remove.reset();
            setConfirming(false);
          }}
          onConfirm={() =>
            remove.mutate(creative.id, {
              onSuccess: () => {
                toast.show(t('toast.creativeDeleted', { name: creative.name }));
                onDeleted();
              },
            })
          }
        >
          <p>{t('creatives.deleteBody', { name: creative.name })}</p>
          <p>{t('creatives.deleteSimulations', { count: simulations })}</p>
        </ConfirmDialog>
      ) : null}
    </article>
  );
}

/** The name, brand, campaign and notes as text (a viewer's page). */
function CreativeDetails({ creative }: { creative: Creative }) {
  const { t } = useTranslation();
  const rows = [
    ['brand', creative.brand],
    ['campaign', creative.campaign],
    ['notes', creative.notes],
  ] as const;
  return (
    <>
      <h2 className="rename__title" data-testid="creative-name">
        {creative.name}
      </h2>
      <dl className="detail__facts" data-testid="creative-facts">
        {rows.map(([field, value]) => (
          <div key={field} className="detail__fact">
            <dt>{t(`creatives.fields.${field}`)}</dt>
            <dd>{value || '—'}</dd>
          </div>
        ))}
      </dl>
    </>
  );
}

/** The name as a heading; "Rename" turns it into a field: Enter saves, Escape cancels. */
function RenameField({ creative }: { creative: Creative }) {
  const { t } = useTranslation();
  const update = useUpdateCreative(creative.id);
  const toast = useToast();
  const inputId = useId();
  const hintId = useId();
  const [draft, setDraft] = useState<string | null>(null);

  const save = () => {
    if (draft === null) return;
    const name = draft.trim();
    if (name === creative.name) {
      setDraft(null);
      return;
    }
    update.mutate(
      { name },
      {
        onSuccess: (saved) => {
          toast.show(t('toast.creativeSaved', { name: saved.name }), { id: `creative-saved-${saved.id}` });
          setDraft(null);
        },
      },
    );
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      save();
    } else if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      update.reset();
      setDraft(null);
    }
  };

  if (draft === null) {
    return (
      <div className="rename">
        <h2 className="rename__title" data-testid="creative-name">
          {creative.name}
        </h2>
        <Button variant="secondary" size="sm" onClick={() => setDraft(creative.name)} data-testid="rename-creative">
          {t('creatives.rename')}
        </Button>
      </div>
    );
  }
  const code = fieldError(update.error, 'name');
  return (
    <div className="rename field">
      <Label htmlFor={inputId}>{t('creatives.fields.name')}</Label>
      <Input
        id={inputId}
        value={draft}
        autoFocus
        maxLength={200}
        aria-describedby={hintId}
        aria-invalid={code ? true : undefined}
        onChange={(event) => setDraft(event.target.value)}
        onKeyDown={onKeyDown}
        data-testid="rename-input"
      />
      <p id={hintId} className="field__hint">
        {t('creatives.renameHint')}
      </p>
      {update.isError ? (
        <p role="alert" className="form-error">
          {code ? t(fieldErrorKey(code)) : t(apiErrorKey(update.error))}
        </p>
      ) : null}
    </div>
  );
}

type MetadataFormProps = { creative: Creative; update: ReturnType<typeof useUpdateCreative> };

/** Brand, campaign and notes. */
function MetadataForm({ creative, update }: MetadataFormProps) {
  const { t } = useTranslation();
  const toast = useToast();
  const ids = { brand: useId(), campaign: useId(), notes: useId() };
  const [values, setValues] = useState({
    brand: creative.brand ?? '',
    campaign: creative.campaign ?? '',
    notes: creative.notes ?? '',
  });
  const [saved, setSaved] = useState(false);
  // Unsaved when the fields differ from the creative as stored (a save brings them level).
  const stored = { brand: creative.brand ?? '', campaign: creative.campaign ?? '', notes: creative.notes ?? '' };
  const dirty = (Object.keys(stored) as Array<keyof typeof stored>).some((key) => values[key] !== stored[key]);
  const unsaved = useUnsavedChanges(dirty);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSaved(false);
    update.mutate(values, {
      onSuccess: (result) => {
        toast.show(t('toast.creativeSaved', { name: result.name }), { id: `creative-saved-${result.id}` });
        setSaved(true);
      },
    });
  };
  const error = (field: string) => {
    const code = fieldError(update.error, field);
    return code ? (
      <p className="form-error" id={`${ids[field as keyof typeof ids]}-error`}>
        {t(fieldErrorKey(code))}
      </p>
    ) : null;
  };

  return (
    <form className="detail__form" onSubmit={submit} noValidate>
      <LeaveDialog blocker={unsaved.blocker} />
      <div className="field">
        <Label htmlFor={ids.brand}>{t('creatives.fields.brand')}</Label>
        <Input
          id={ids.brand}
          value={values.brand}
          maxLength={200}
          onChange={(event) => setValues({ ...values, brand: event.target.value })}
        />
        {error('brand')}
      </div>
      <div className="field">
        <Label htmlFor={ids.campaign}>{t('creatives.fields.campaign')}</Label>
        <Input
          id={ids.campaign}
          value={values.campaign}
          maxLength={200}
          onChange={(event) => setValues({ ...values, campaign: event.target.value })}
        />
        {error('campaign')}
      </div>
      <div className="field">
        <Label htmlFor={ids.notes}>{t('creatives.fields.notes')}</Label>
        <textarea
          id={ids.notes}
          className="ui-input ui-textarea"
          rows={4}
          maxLength={5000}
          value={values.notes}
          onChange={(event) => setValues({ ...values, notes: event.target.value })}
        />
        {error('notes')}
      </div>
      {update.isError && !isApiError(update.error) ? <Banner variant="error">{t('apiErrors.generic')}</Banner> : null}
      {update.isError && isApiError(update.error) && Object.keys(update.error.fields).length === 0 ? (
        <Banner variant="error">{t(apiErrorKey(update.error))}</Banner>
      ) : null}
      <div className="form-actions">
        <Button type="submit" disabled={update.isPending}>
          {update.isPending ? t('common.saving') : t('common.save')}
        </Button>
        {saved ? (
          <span role="status" className="form-saved">
            {t('common.saved')}
          </span>
        ) : null}
      </div>
    </form>
  );
}
