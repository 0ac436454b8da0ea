import { useQuery } from '@tanstack/react-query';
import { useCallback, useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { LeaveDialog } from '@/components/leave-dialog';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { apiErrorKey, fieldErrorKey, isApiError, uploadMedia } from '@/lib/api';
import { defaultQuad, quadProblem, type Quad } from '@/lib/quad';
import { useUnsavedChanges } from '@/lib/use-unsaved-changes';

import {
  creativeOptionQueryOptions,
  locationOptionQueryOptions,
  useSaveSimulation,
  type CreativeOption,
  type LocationOption,
  type Simulation,
} from '../api/simulations';
import {
  defaultNight,
  defaultView,
  draftFromSimulation,
  emptyDraft,
  locationProblem,
  locationQuad,
  locationSite,
  panelAspect,
  saveBody,
  sameQuad,
  type Draft,
} from '../lib/editor';
import { MaskPainter } from '../lib/mask';
import type { PreviewParams } from '../lib/preview';
import { FITS, VIEW_DISTANCE, type Adjustments, type Fit } from '../lib/types';

import { AdjustmentsPanel } from './adjustments-panel';
import { CreativePicker, LocationPicker } from './pickers';
import { PreviewStage, type Tool } from './preview-stage';
import { LegibilityPanel } from './legibility-panel';
import { SimulationResult } from './simulation-result';

export type SimulationEditorProps = {
  /** The saved simulation being edited (live), or null for a new one. */
  simulation: Simulation | null;
  /** Deep link (`?creative=…&location=…`) of a new simulation. */
  creativeId?: string | null;
  locationId?: string | null;
  /** A new simulation was saved (the page moves to its address). */
  onCreated: (id: string) => void;
  /** The chosen creative changed (the page's batch dialog starts with it). */
  onCreativeChange?: (creative: CreativeOption | null) => void;
};

function creativeFromSimulation(simulation: Simulation | null): CreativeOption | null {
  return simulation?.creative ?? null;
}

function locationFromSimulation(simulation: Simulation | null): LocationOption | null {
  const location = simulation?.location;
  return location ? { ...location, postal_code: null } : null;
}

/** Field errors shown by the editor: the server's `details.fields` and the client's own checks. */
type Errors = Record<string, string>;

/**
 * The editor of one simulation: configuration (creative, location, name, fit, corners),
 * adjustments (sliders, automatic match, day / night, occlusion mask) and the live preview;
 * Save uploads the painted mask, then creates or updates the simulation, whose render status,
 * image, downloads and attention analysis show below.
 */
export function SimulationEditor({ simulation, creativeId = null, locationId = null, onCreated, onCreativeChange }: SimulationEditorProps) {
  const { t } = useTranslation();
  const ids = { name: useId(), fit: useId(), background: useId(), corners: useId() };
  const [draft, setDraft] = useState<Draft>(() => (simulation ? draftFromSimulation(simulation) : emptyDraft(creativeId, locationId)));
  const [chosenCreative, setChosenCreative] = useState<CreativeOption | null>(() => creativeFromSimulation(simulation));
  const [chosenLocation, setChosenLocation] = useState<LocationOption | null>(() => locationFromSimulation(simulation));
  const [tool, setTool] = useState<Tool>('corners');
  const [brushSize, setBrushSize] = useState(0.04);
  const [view, setView] = useState<'after' | 'before'>('after');
  const [painter] = useState(() => new MaskPainter());
  const [maskVersion, setMaskVersion] = useState(0);
  const [clientErrors, setClientErrors] = useState<Errors>({});
  const [uploading, setUploading] = useState(false);
  const [uploadError, setUploadError] = useState<unknown>(null);
  const save = useSaveSimulation();

  // A deep link names ids: their details come from the API.
  const linkedCreative = useQuery({
    ...creativeOptionQueryOptions(draft.creativeId ?? ''),
    enabled: Boolean(draft.creativeId) && chosenCreative?.id !== draft.creativeId,
  });
  const linkedLocation = useQuery({
    ...locationOptionQueryOptions(draft.locationId ?? ''),
    enabled: Boolean(draft.locationId) && chosenLocation?.id !== draft.locationId,
  });
  const creative = chosenCreative?.id === draft.creativeId ? chosenCreative : (linkedCreative.data ?? null);
  const location = chosenLocation?.id === draft.locationId ? chosenLocation : (linkedLocation.data ?? null);
  useEffect(() => {
    onCreativeChange?.(creative);
  }, [creative, onCreativeChange]);
  const problem = location ? locationProblem(location) : null;
  const ownQuad = locationQuad(location);
  const quad: Quad = draft.quad ?? ownQuad ?? defaultQuad();
  const aspect = panelAspect(location);
  // The view from there: the panel's size and passing distance, and what its switch turns on.
  const site = useMemo(() => locationSite(location), [location]);
  const viewDefault = useMemo(() => defaultView(location), [location]);

  // What was last loaded or saved: a changed draft or a painted mask asks before leaving the page.
  const [stored, setStored] = useState(() => JSON.stringify(draft));
  const unsaved = useUnsavedChanges(JSON.stringify(draft) !== stored || painter.dirty);

  const update = useCallback((patch: Partial<Draft>) => setDraft((current) => ({ ...current, ...patch })), []);
  const setAdjustments = useCallback((adjustments: Adjustments) => update({ adjustments }), [update]);
  const setQuad = useCallback((next: Quad) => update({ quad: next }), [update]);
  // The legibility panel's "see from n m": the view on at that distance, shown in the preview.
  const viewFrom = useCallback(
    (distance: number) => {
      setDraft((current) => ({
        ...current,
        adjustments: {
          ...current.adjustments,
          view: { distance_m: Math.min(VIEW_DISTANCE.max, Math.max(VIEW_DISTANCE.min, distance)), speed_kmh: current.adjustments.view?.speed_kmh ?? viewDefault.speed_kmh },
        },
      }));
      setView('after');
      document.getElementById('simulation-preview')?.closest('section')?.scrollIntoView?.({ block: 'nearest', behavior: 'smooth' });
    },
    [viewDefault],
  );
  const clearMask = useCallback(() => {
    painter.clear();
    setMaskVersion((v) => v + 1);
  }, [painter]);

  // A saved mask is drawn once the photo (hence the mask's size) is known.
  const maskUrl = simulation?.mask?.urls.original ?? null;
  const maskLoaded = useRef<string | null>(null);
  const onStageReady = useCallback(() => {
    if (!maskUrl || maskLoaded.current === maskUrl || painter.dirty) return;
    maskLoaded.current = maskUrl;
    const image = new Image();
    image.onload = () => {
      painter.load(image);
      setMaskVersion((v) => v + 1);
    };
    image.src = maskUrl;
  }, [maskUrl, painter]);

  const params = useMemo<PreviewParams>(
    () => ({ quad, fit: draft.fit, background: draft.background, panelAspect: aspect, adjustments: draft.adjustments, site, view }),
    [quad, draft.fit, draft.background, aspect, draft.adjustments, site, view],
  );

  // Server field errors, until the user saves again.
  const serverErrors: Errors = isApiError(save.error) ? save.error.fields : {};
  const errors: Errors = { ...serverErrors, ...clientErrors };
  const fieldMessage = (field: string) => (errors[field] ? t(fieldErrorKey(errors[field])) : undefined);
  const quadWarning = quadProblem(quad);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const found: Errors = {};
    if (!draft.creativeId) found.creative_id = 'required';
    if (!draft.locationId) found.location_id = 'required';
    else if (problem === 'noPhoto') found.location_id = 'requires_photo';
    else if (problem === 'noQuad' && !draft.quad) found.quad = 'required';
    if (quadWarning) found.quad = quadWarning;
    setClientErrors(found);
    save.reset();
    setUploadError(null);
    if (Object.keys(found).length > 0) return;

    let maskMediaId: string | null | undefined;
    if (painter.dirty) {
      if (painter.painted) {
        setUploading(true);
        try {
          const media = await uploadMedia(await painter.toFile());
          maskMediaId = media.id;
        } catch (error) {
          setUploadError(error);
          return;
        } finally {
          setUploading(false);
        }
      } else if (simulation?.mask) {
        maskMediaId = null;
      }
    }
    const input = saveBody(draft, { existing: Boolean(simulation), locationQuad: ownQuad, maskMediaId });
    const sent = JSON.stringify(draft);
    save.mutate(
      { id: simulation?.id, input },
      {
        onSuccess: (saved) => {
          painter.dirty = false;
          maskLoaded.current = saved.mask?.urls.original ?? null;
          setStored(sent);
          if (!simulation) {
            unsaved.allowLeave();
            onCreated(saved.id);
          }
        },
      },
    );
  };

  const busy = uploading || save.isPending;
  const generalError = uploadError ?? (save.isError && !(isApiError(save.error) && save.error.code === 'validation_failed' && Object.keys(serverErrors).length > 0) ? save.error : null);
  const canPreview = Boolean(creative && location?.photo && (ownQuad || draft.quad));
  const nameError = fieldMessage('name');

  return (
    <form className="sim-editor" onSubmit={(event) => void onSubmit(event)} noValidate data-testid="simulation-editor">
      <LeaveDialog blocker={unsaved.blocker} />
      {/* The grid holds the pinned preview: it never slides over the render and its buttons below. */}
      <div className="sim-editor__grid">
        <section className="card sim-section sim-section--config" aria-labelledby="simulation-configuration">
          <h2 id="simulation-configuration" className="card__title">
            {t('simulation.configuration')}
          </h2>
          <CreativePicker
            value={creative}
            onChange={(next) => {
              setChosenCreative(next);
              update({ creativeId: next.id });
            }}
            error={fieldMessage('creative_id')}
          />
          <LocationPicker
            value={location}
            onChange={(next) => {
              setChosenLocation(next);
              update({ locationId: next.id, quad: null });
              clearMask();
            }}
            error={fieldMessage('location_id') ?? (problem ? t(`simulation.config.locationProblem.${problem}`) : undefined)}
          />
          <div className="field">
            <Label htmlFor={ids.name}>{t('simulation.config.name')}</Label>
            <Input
              id={ids.name}
              value={draft.name}
              maxLength={200}
              placeholder={creative && location ? t('simulation.config.namePlaceholder', { creative: creative.name, location: location.name }) : undefined}
              onChange={(event) => update({ name: event.target.value })}
              aria-invalid={nameError ? true : undefined}
              aria-describedby={nameError ? `${ids.name}-error` : undefined}
            />
            {nameError ? (
              <p id={`${ids.name}-error`} className="field__error">
                {nameError}
              </p>
            ) : null}
          </div>
          <fieldset className="sim-fieldset">
            <legend className="ui-label">{t('simulation.config.fit')}</legend>
            <div className="sim-radios sim-radios--row">
              {FITS.map((fit: Fit) => (
                <label key={fit} className="sim-radio" title={t(`simulation.config.fitHelp.${fit}`)}>
                  <input type="radio" name={ids.fit} value={fit} checked={draft.fit === fit} onChange={() => update({ fit })} data-testid={`fit-${fit}`} />
                  <span>{t(`simulation.config.fits.${fit}`)}</span>
                </label>
              ))}
            </div>
            <p className="field__hint">{t(`simulation.config.fitHelp.${draft.fit}`)}</p>
            {draft.fit === 'contain' ? (
              <div className="sim-colour">
                <Label htmlFor={ids.background}>{t('simulation.config.background')}</Label>
                <input id={ids.background} type="color" value={draft.background} onChange={(event) => update({ background: event.target.value })} />
                <span className="field__hint">{draft.background}</span>
              </div>
            ) : null}
            {fieldMessage('fit') ? <p className="field__error">{fieldMessage('fit')}</p> : null}
            {fieldMessage('background') ? <p className="field__error">{fieldMessage('background')}</p> : null}
          </fieldset>
          <div className="sim-corners" aria-labelledby={ids.corners}>
            <h3 id={ids.corners} className="ui-label">
              {t('simulation.config.corners')}
            </h3>
            <p className="field__hint">{t('simulation.config.cornersHelp')}</p>
            <p className="field__hint" data-testid="quad-source">
              {draft.quad && !sameQuad(draft.quad, ownQuad) ? t('simulation.config.cornersOverride') : t('simulation.config.cornersOwn')}
            </p>
            <Button
              variant="secondary"
              size="sm"
              onClick={() => update({ quad: null })}
              disabled={!draft.quad || !ownQuad || sameQuad(draft.quad, ownQuad)}
              data-testid="reset-corners"
            >
              {t('simulation.config.resetCorners')}
            </Button>
            {quadWarning || fieldMessage('quad') ? (
              <p className="field__error" role="alert" data-testid="quad-error">
                {quadWarning ? t(`fieldErrors.${quadWarning}`) : fieldMessage('quad')}
              </p>
            ) : null}
          </div>
        </section>

        <section className="card sim-section sim-section--adjust" aria-labelledby="simulation-adjustments">
          <h2 id="simulation-adjustments" className="card__title">
            {t('simulation.adjustments')}
          </h2>
          <AdjustmentsPanel
            adjustments={draft.adjustments}
            onChange={setAdjustments}
            nightDefault={defaultNight(location?.illumination)}
            site={site}
            viewDefault={viewDefault}
            fieldErrors={errors}
            tool={tool}
            onTool={setTool}
            brushSize={brushSize}
            onBrushSize={setBrushSize}
            onClearMask={clearMask}
            maskPainted={painter.painted || maskVersion < 0}
            disabled={false}
          />
        </section>

        <section className="card sim-section sim-section--preview" aria-labelledby="simulation-preview">
          <header className="sim-section__header">
            <h2 id="simulation-preview" className="card__title">
              {t('simulation.preview')}
            </h2>
            <div className="sim-segmented" role="group" aria-label={t('simulation.view.beforeAfter')}>
              <Button variant="secondary" size="sm" aria-pressed={view === 'before'} onClick={() => setView('before')} data-testid="view-before">
                {t('simulation.view.before')}
              </Button>
              <Button variant="secondary" size="sm" aria-pressed={view === 'after'} onClick={() => setView('after')} data-testid="view-after">
                {t('simulation.view.after')}
              </Button>
            </div>
          </header>
          {canPreview && creative && location?.photo ? (
            <PreviewStage
              photoUrl={location.photo.urls.preview}
              photoFullUrl={location.photo.urls.original}
              photoWidth={location.photo.width}
              photoHeight={location.photo.height}
              creativeUrl={creative.media.urls.preview}
              params={params}
              quad={quad}
              onQuadChange={setQuad}
              tool={tool}
              brushSize={brushSize}
              painter={painter}
              maskVersion={maskVersion}
              onReady={onStageReady}
              onPaint={() => setMaskVersion((v) => v + 1)}
            />
          ) : (
            <p className="sim-empty" data-testid="preview-empty">
              {t('simulation.view.empty')}
            </p>
          )}
          <div className="sim-save">
            {generalError ? (
              <Banner variant="error">{t(apiErrorKey(generalError))}</Banner>
            ) : Object.keys(errors).length > 0 ? (
              <p className="form-error" role="alert">
                {t('simulation.save.fix')}
              </p>
            ) : null}
            <Button type="submit" disabled={busy} data-testid="save-simulation">
              {uploading ? t('simulation.save.uploadingMask') : save.isPending ? t('common.saving') : simulation ? t('simulation.save.update') : t('simulation.save.create')}
            </Button>
            <p className="field__hint">{t('simulation.save.help')}</p>
          </div>
        </section>
      </div>

      {simulation ? <SimulationResult simulation={simulation} /> : null}
      {simulation ? <LegibilityPanel simulation={simulation} onViewFrom={site ? viewFrom : undefined} /> : null}
    </form>
  );
}
