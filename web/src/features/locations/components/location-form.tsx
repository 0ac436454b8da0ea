import { useQuery } from '@tanstack/react-query';
import { useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

import { DropZone } from '@/components/drop-zone';
import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Select } from '@/components/ui/select';
import { apiErrorKey, fieldErrorKey, isApiError, uploadMedia, type Media } from '@/lib/api';
import { errorInfo, errorMessage, type ErrorInfo } from '@/lib/error-message';
import { LeaveDialog } from '@/components/leave-dialog';
import { useToast } from '@/lib/toast';
import { useUnsavedChanges } from '@/lib/use-unsaved-changes';

import {
  AUDIENCES,
  formatsQueryOptions,
  ILLUMINATIONS,
  offeredFormats,
  useSaveLocation,
  type Audience,
  type FormatInfo,
  type Location,
  type LocationFormat,
  type LocationInput,
} from '../api/locations';
import { PositionPicker } from './position-picker';
import { ViewingSummary } from './viewing-summary';
import { DEFAULT_SPEED_KMH, locationViewing } from '../lib/viewing';
import { defaultQuad, parseQuad, quadProblem, roundQuad, type Quad } from '@/lib/quad';

import { QuadEditor } from '@/components/quad-editor';

const TEXT_FIELDS = ['name', 'address', 'city', 'postal_code', 'country', 'notes', 'audience_source'] as const;
const NUMBER_FIELDS = [
  'latitude',
  'longitude',
  'orientation_deg',
  'viewing_distance_min_m',
  'viewing_distance_max_m',
  'speed_kmh',
  'screen_width_px',
  'screen_height_px',
  'daily_contacts',
] as const;
/** The panel's size, typed in metres, sent in centimetres (`panel_width_cm`, `panel_height_cm`). */
const SIZE_FIELDS = { panel_width_m: 'panel_width_cm', panel_height_m: 'panel_height_cm' } as const;
type TextField = (typeof TEXT_FIELDS)[number];
type NumberField = (typeof NUMBER_FIELDS)[number];
type SizeField = keyof typeof SIZE_FIELDS;
type Values = Record<TextField | NumberField | SizeField, string> & { format: string; illumination: string; audience: string };

/** Centimetres shown as metres ("4", "1.76"), or blank. */
function metres(cm: number | null | undefined): string {
  return cm === null || cm === undefined ? '' : String(cm / 100);
}

function initialValues(location?: Location): Values {
  const text = (value: string | null | undefined) => value ?? '';
  const number = (value: number | null | undefined) => (value === null || value === undefined ? '' : String(value));
  return {
    name: text(location?.name),
    address: text(location?.address),
    city: text(location?.city),
    postal_code: text(location?.postal_code),
    country: text(location?.country),
    notes: text(location?.notes),
    latitude: number(location?.latitude),
    longitude: number(location?.longitude),
    panel_width_m: metres(location?.panel_width_cm),
    panel_height_m: metres(location?.panel_height_cm),
    orientation_deg: number(location?.orientation_deg),
    viewing_distance_min_m: number(location?.viewing_distance_min_m),
    viewing_distance_max_m: number(location?.viewing_distance_max_m),
    speed_kmh: number(location?.speed_kmh),
    screen_width_px: number(location?.screen_width_px),
    screen_height_px: number(location?.screen_height_px),
    daily_contacts: number(location?.daily_contacts),
    audience_source: text(location?.audience_source),
    format: location?.format ?? 'other',
    illumination: location?.illumination ?? 'none',
    audience: location?.audience ?? '',
  };
}

/** A typed number, accepting a decimal comma; what is not a number goes as typed so the server names the problem. */
function parseNumber(text: string): number | string | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const value = Number(trimmed.replace(',', '.'));
  return Number.isFinite(value) ? value : trimmed;
}

/** A typed count ("10 000", "10,000", "10.000"): thousands grouped by spaces, commas or points. */
function parseCount(text: string): number | string | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  const groups = trimmed.split(/[\s\u00a0\u202f.,']/);
  if (groups.length > 1 && groups.every((g) => /^\d+$/.test(g)) && groups[0].length <= 3 && groups.slice(1).every((g) => g.length === 3)) {
    return Number(groups.join(''));
  }
  return parseNumber(trimmed);
}

type PhotoState =
  | { status: 'idle' }
  | { status: 'uploading'; name: string; percent: number }
  | ({ status: 'failed' } & ErrorInfo);

export type LocationFormProps = {
  location?: Location;
  onSaved: (location: Location) => void;
  /** Extra buttons (e.g. delete) next to Save. */
  extraActions?: ReactNode;
  /** A viewer of the workspace: the fields show the location, nothing can be changed or saved. */
  readOnly?: boolean;
};

/** The corners the form opens with: the saved ones, else a default quad on a photo. */
function openingQuad(location?: Location): Quad | null {
  return parseQuad(location?.panel_quad) ?? (location?.photo ? defaultQuad() : null);
}

/** A new location's form as it opened: nothing typed, no photo (the defaults are not changes). */
function isBlank(values: Values, photo: Media | null): boolean {
  const blank = initialValues();
  return photo === null && (Object.keys(values) as Array<keyof Values>).every((key) => values[key] === blank[key]);
}

/** Create or edit a location: site, panel, photo and the panel's four corners on it. */
export function LocationForm({ location, onSaved, extraActions, readOnly = false }: LocationFormProps) {
  const { t, i18n } = useTranslation();
  const save = useSaveLocation(location?.id);
  const formats = useQuery(formatsQueryOptions());
  const toast = useToast();
  const [values, setValues] = useState<Values>(() => initialValues(location));
  const [photo, setPhoto] = useState<Media | null>(location?.photo ?? null);
  const [quad, setQuad] = useState<Quad | null>(() => openingQuad(location));
  const [photoState, setPhotoState] = useState<PhotoState>({ status: 'idle' });
  const baseId = useId();
  const formRef = useRef<HTMLFormElement>(null);
  // Unsaved changes: what the form holds against what it opened with.
  const [opened] = useState(() => {
    const start = openingQuad(location);
    return JSON.stringify([initialValues(location), location?.photo?.id ?? null, location?.photo && start ? roundQuad(start) : null]);
  });
  const current = JSON.stringify([values, photo?.id ?? null, photo && quad ? roundQuad(quad) : null]);
  const dirty = current !== opened && !(location === undefined && isBlank(values, photo));
  const unsaved = useUnsavedChanges(dirty && !save.isSuccess);

  const fields = isApiError(save.error) ? save.error.fields : {};
  const set = (field: keyof Values) => (value: string) => setValues((current) => ({ ...current, [field]: value }));
  // A format fills in its panel size (and a screen's pixels), unless the user typed their own.
  const chooseFormat = (format: string) =>
    setValues((current) => {
      const table = formats.data ?? [];
      const find = (name: string): FormatInfo | undefined => table.find((info) => info.format === name);
      const before = find(current.format);
      const after = find(format);
      const next = { ...current, format };
      const sizeUntouched =
        (current.panel_width_m === '' && current.panel_height_m === '') ||
        (current.panel_width_m === metres(before?.width_cm) && current.panel_height_m === metres(before?.height_cm));
      if (after?.width_cm != null && after.height_cm != null && sizeUntouched) {
        next.panel_width_m = metres(after.width_cm);
        next.panel_height_m = metres(after.height_cm);
      }
      const pixelsUntouched =
        (current.screen_width_px === '' && current.screen_height_px === '') ||
        (current.screen_width_px === String(before?.width_px) && current.screen_height_px === String(before?.height_px));
      if (after?.width_px != null && after.height_px != null && pixelsUntouched) {
        next.screen_width_px = String(after.width_px);
        next.screen_height_px = String(after.height_px);
      }
      return next;
    });

  const onPhoto = async (files: File[]) => {
    const file = files[0];
    if (!file) return;
    setPhotoState({ status: 'uploading', name: file.name, percent: 0 });
    try {
      const media = await uploadMedia(file, {
        onProgress: (loaded, total) =>
          setPhotoState({ status: 'uploading', name: file.name, percent: Math.round((loaded / Math.max(total, 1)) * 100) }),
      });
      setPhoto(media);
      setQuad(defaultQuad());
      setPhotoState({ status: 'idle' });
      const gps = media.gps;
      if (gps) {
        // Only empty coordinates are filled: what the user typed wins.
        setValues((current) =>
          current.latitude.trim() === '' && current.longitude.trim() === ''
            ? { ...current, latitude: String(gps.latitude), longitude: String(gps.longitude) }
            : current,
        );
      }
    } catch (error) {
      setPhotoState({ status: 'failed', ...errorInfo(error) });
    }
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const input = {
      format: values.format,
      illumination: values.illumination,
      audience: values.audience === '' ? null : values.audience,
      photo_media_id: photo?.id ?? null,
      panel_quad: photo && quad ? roundQuad(quad) : null,
    } as Record<string, unknown>;
    for (const field of TEXT_FIELDS) input[field] = values[field].trim() === '' ? null : values[field].trim();
    for (const field of NUMBER_FIELDS) input[field] = parseNumber(values[field]);
    input.daily_contacts = parseCount(values.daily_contacts);
    for (const [field, sent] of Object.entries(SIZE_FIELDS) as Array<[SizeField, string]>) {
      const value = parseNumber(values[field]);
      input[sent] = typeof value === 'number' ? Math.round(value * 100) : value;
    }
    // A blank name goes as `null`: the server's `required` shows beside the field.
    save.mutate(input as LocationInput, {
      // Refused fields: focus goes to the first one, whose error shows next to it.
      onError: () =>
        requestAnimationFrame(() => formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus()),
      onSuccess: (saved) => {
        toast.show(t('toast.locationSaved', { name: saved.name }), { id: `location-saved-${saved.id}` });
        unsaved.allowLeave();
        onSaved(saved);
      },
    });
  };

  const id = (field: string) => `${baseId}-${field}`;
  const errorOf = (field: string) => {
    const code = fields[field];
    return code ? (
      <p id={`${id(field)}-error`} className="form-error" data-testid={`error-${field}`}>
        {t(fieldErrorKey(code))}
      </p>
    ) : null;
  };
  const described = (field: string) => (fields[field] ? `${id(field)}-error` : undefined);

  const textInput = (
    field: TextField | NumberField | SizeField,
    options: { required?: boolean; inputMode?: 'decimal' | 'numeric'; maxLength?: number; placeholder?: string } = {},
  ) => {
    // The size fields' problems come back under the names the API reads.
    const key = field in SIZE_FIELDS ? SIZE_FIELDS[field as SizeField] : field;
    return (
      <div className="field">
        <Label htmlFor={id(key)}>
          {t(`locations.fields.${field}`)}
          {options.required ? <span aria-hidden="true"> *</span> : null}
        </Label>
        <Input
          id={id(key)}
          name={field}
          value={values[field]}
          required={options.required}
          inputMode={options.inputMode}
          maxLength={options.maxLength}
          placeholder={options.placeholder}
          aria-invalid={fields[key] ? true : undefined}
          aria-describedby={described(key)}
          onChange={(event) => set(field)(event.target.value)}
        />
        {errorOf(key)}
      </div>
    );
  };
  const typed = (field: NumberField | SizeField): number | null => {
    const value = parseNumber(values[field]);
    return typeof value === 'number' ? value : null;
  };
  const audience = values.audience === '' ? null : (values.audience as Audience);
  const widthM = typed('panel_width_m');
  const heightM = typed('panel_height_m');
  const viewing = locationViewing({
    panelHeightCm: heightM === null ? null : heightM * 100,
    audience,
    minM: typed('viewing_distance_min_m'),
    maxM: typed('viewing_distance_max_m'),
    speedKmh: typed('speed_kmh'),
  });
  const isScreen =
    values.illumination === 'digital' ||
    formats.data?.find((info) => info.format === values.format)?.region === 'digital' ||
    values.screen_width_px !== '' ||
    values.screen_height_px !== '';
  const formatGroups = offeredFormats(formats.data ?? []);

  const gpsFilled =
    photo?.gps != null &&
    values.latitude === String(photo.gps.latitude) &&
    values.longitude === String(photo.gps.longitude);
  const problem = quad && photo ? quadProblem(quad) : null;
  const otherError = save.isError && Object.keys(fields).length === 0;

  return (
    <form ref={formRef} className="location-form" onSubmit={submit} noValidate data-testid="location-form">
      <LeaveDialog blocker={unsaved.blocker} />
      {save.isError ? (
        <Banner variant="error">{otherError ? t(apiErrorKey(save.error)) : t('apiErrors.validation_failed')}</Banner>
      ) : null}

      <fieldset className="form-section" disabled={readOnly}>
        <legend className="form-section__title">{t('locations.sections.site')}</legend>
        {textInput('name', { required: true, maxLength: 200 })}
        {textInput('address', { maxLength: 500 })}
        <div className="form-grid">
          {textInput('postal_code', { maxLength: 20 })}
          {textInput('city', { maxLength: 200 })}
          {textInput('country', { maxLength: 100 })}
        </div>
        <div className="form-grid">
          {textInput('latitude', { inputMode: 'decimal' })}
          {textInput('longitude', { inputMode: 'decimal' })}
        </div>
        {gpsFilled ? (
          <p role="status" className="field__hint">
            {t('locations.gpsFilled')}
          </p>
        ) : null}
        <PositionPicker
          latitude={typed('latitude')}
          longitude={typed('longitude')}
          onPick={(latitude, longitude) => setValues((current) => ({ ...current, latitude: String(latitude), longitude: String(longitude) }))}
        />
      </fieldset>

      <fieldset className="form-section" disabled={readOnly}>
        <legend className="form-section__title">{t('locations.sections.panel')}</legend>
        <div className="form-grid">
          <div className="field">
            <Label htmlFor={id('format')}>{t('locations.fields.format')}</Label>
            <Select
              id={id('format')}
              value={values.format}
              aria-invalid={fields.format ? true : undefined}
              aria-describedby={described('format')}
              onChange={(event) => chooseFormat(event.target.value)}
            >
              {formatGroups.length === 0 ? (
                <option value={values.format}>{t(`locations.formats.${values.format as LocationFormat}`)}</option>
              ) : (
                formatGroups.map(([region, infos]) => (
                  <optgroup key={region} label={t(`locations.regions.${region}`)}>
                    {infos.map((info) => (
                      <option key={info.format} value={info.format}>
                        {t(`locations.formats.${info.format}`)}
                      </option>
                    ))}
                  </optgroup>
                ))
              )}
            </Select>
            {errorOf('format')}
          </div>
          <div className="field">
            <Label htmlFor={id('illumination')}>{t('locations.fields.illumination')}</Label>
            <Select
              id={id('illumination')}
              value={values.illumination}
              aria-invalid={fields.illumination ? true : undefined}
              aria-describedby={described('illumination')}
              onChange={(event) => set('illumination')(event.target.value)}
            >
              {ILLUMINATIONS.map((illumination) => (
                <option key={illumination} value={illumination}>
                  {t(`locations.illuminations.${illumination}`)}
                </option>
              ))}
            </Select>
            {errorOf('illumination')}
          </div>
        </div>
        <div className="form-grid">
          {textInput('panel_width_m', { inputMode: 'decimal' })}
          {textInput('panel_height_m', { inputMode: 'decimal' })}
          {textInput('orientation_deg', { inputMode: 'decimal' })}
        </div>
        {isScreen ? (
          <div className="form-grid">
            {textInput('screen_width_px', { inputMode: 'numeric' })}
            {textInput('screen_height_px', { inputMode: 'numeric' })}
          </div>
        ) : null}
        {widthM !== null && heightM !== null ? (
          <p className="field__hint" data-testid="panel-area">
            {t('locations.area', { area: (widthM * heightM).toLocaleString(i18n.language, { maximumFractionDigits: 2 }) })}
          </p>
        ) : null}
        <div className="field">
          <Label htmlFor={id('notes')}>{t('locations.fields.notes')}</Label>
          <textarea
            id={id('notes')}
            className="ui-input ui-textarea"
            rows={3}
            maxLength={5000}
            value={values.notes}
            aria-describedby={described('notes')}
            onChange={(event) => set('notes')(event.target.value)}
          />
          {errorOf('notes')}
        </div>
      </fieldset>

      <fieldset className="form-section" data-testid="viewing-section">
        <legend className="form-section__title">{t('locations.sections.viewing')}</legend>
        <div className="form-grid">
          <div className="field">
            <Label htmlFor={id('audience')}>{t('locations.fields.audience')}</Label>
            <Select
              id={id('audience')}
              value={values.audience}
              aria-invalid={fields.audience ? true : undefined}
              aria-describedby={described('audience')}
              onChange={(event) => set('audience')(event.target.value)}
            >
              <option value="">{t('locations.audiences.unknown')}</option>
              {AUDIENCES.map((value) => (
                <option key={value} value={value}>
                  {t(`locations.audiences.${value}`)}
                </option>
              ))}
            </Select>
            {errorOf('audience')}
          </div>
          {textInput('speed_kmh', {
            inputMode: 'decimal',
            placeholder: audience ? t('locations.speedDefault', { speed: DEFAULT_SPEED_KMH[audience] }) : undefined,
          })}
        </div>
        <div className="form-grid">
          {textInput('viewing_distance_min_m', { inputMode: 'decimal' })}
          {textInput('viewing_distance_max_m', { inputMode: 'decimal' })}
        </div>
        <ViewingSummary viewing={viewing} />
        <div className="form-grid">
          {textInput('daily_contacts', { inputMode: 'numeric' })}
          {textInput('audience_source', { maxLength: 100, placeholder: t('locations.audienceSourcePlaceholder') })}
        </div>
      </fieldset>

      <fieldset className="form-section" disabled={readOnly}>
        <legend className="form-section__title">{t('locations.sections.photo')}</legend>
        {photo && readOnly ? (
          <img
            className="location-form__photo"
            src={photo.urls.preview}
            alt={t('locations.photoAlt', { name: location?.name ?? '' })}
            width={photo.width}
            height={photo.height}
            data-testid="location-photo"
          />
        ) : photo && quad ? (
          <>
            <QuadEditor help={t('locations.quad.help')} src={photo.urls.preview} loupeSrc={photo.urls.original} width={photo.width} height={photo.height} quad={quad} onChange={setQuad} />
            <div className="form-actions">
              <Button variant="secondary" size="sm" onClick={() => setQuad(defaultQuad())}>
                {t('locations.quad.reset')}
              </Button>
              <Button
                variant="ghost"
                size="sm"
                onClick={() => {
                  setPhoto(null);
                  setQuad(null);
                }}
              >
                {t('locations.photoRemove')}
              </Button>
            </div>
            {problem ? (
              <p className="form-error" role="alert">
                {t(fieldErrorKey(problem))}
              </p>
            ) : null}
          </>
        ) : null}
        {errorOf('panel_quad')}
        {errorOf('photo_media_id')}
        {readOnly ? null : (
          <DropZone
            onFiles={(files) => void onPhoto(files)}
            multiple={false}
            disabled={photoState.status === 'uploading'}
            buttonLabel={photo ? t('locations.photoReplace') : t('locations.photoChoose')}
            testId="photo-drop-zone"
          />
        )}
        {photoState.status === 'uploading' ? (
          <div className="photo-progress">
            <progress
              max={100}
              value={photoState.percent}
              aria-valuenow={photoState.percent}
              aria-valuemin={0}
              aria-valuemax={100}
              aria-label={t('upload.progressLabel', { name: photoState.name })}
            />
          </div>
        ) : null}
        {photoState.status === 'failed' ? (
          <p className="form-error" role="alert" data-testid="photo-error">
            {errorMessage(t, i18n.language, photoState)}
          </p>
        ) : null}
      </fieldset>

      <div className="form-actions">
        {readOnly ? null : (
          <Button type="submit" disabled={save.isPending || photoState.status === 'uploading'} data-testid="save-location">
            {save.isPending ? t('common.saving') : location ? t('common.save') : t('locations.create')}
          </Button>
        )}
        {extraActions}
      </div>
    </form>
  );
}
