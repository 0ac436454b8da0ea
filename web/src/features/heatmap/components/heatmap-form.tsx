import { useInfiniteQuery, type UseInfiniteQueryResult, type InfiniteData } from '@tanstack/react-query';
import { useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

import { QueryError } from '@/components/query-error';
import { DropZone } from '@/components/drop-zone';
import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Spinner } from '@/components/ui/spinner';
import { UploadList } from '@/components/upload-list';
import { apiErrorKey, fieldErrorKey, isApiError, uploadMedia, type Page } from '@/lib/api';
import { errorInfo } from '@/lib/error-message';
import { applyToItem, isSettled, initialUploadState, type UploadEvent, type UploadItem } from '@/lib/upload-machine';

import { MAX_IMAGES, MAX_NAME_LENGTH, useCreateHeatmap, type Heatmap } from '../api/heatmaps';
import {
  creativeImages,
  creativeSourcesQueryOptions,
  renderImages,
  simulationSourcesQueryOptions,
  locationImages,
  locationSourcesQueryOptions,
  type PickerImage,
} from '../api/sources';
import { baseName } from '../lib/format';

import { PickerGroup } from './image-picker';

/** Files uploaded at the same time (the server ingests two at a time by default). */
const UPLOAD_CONCURRENCY = 2;

type Job = { id: string; file: File };
let nextUploadId = 0;

/**
 * The creation form: a name and one or more images picked from the user's
 * creatives and location photos, or uploaded on the spot (an upload is picked
 * as soon as it arrives). Submitting checks both fields at once and shows
 * each message next to its field; the server's field errors land in the same
 * places. On success the caller navigates to the results.
 */
export function HeatmapForm({ onCreated }: { onCreated: (heatmap: Heatmap) => void }) {
  const { t } = useTranslation();
  const ids = { name: useId(), nameError: useId(), imagesHint: useId(), imagesError: useId(), count: useId() };
  const [name, setName] = useState('');
  const [selected, setSelected] = useState<string[]>([]);
  const [uploaded, setUploaded] = useState<PickerImage[]>([]);
  const [uploads, setUploads] = useState<UploadItem[]>([]);
  const [submitted, setSubmitted] = useState(false);
  const nameRef = useRef<HTMLInputElement>(null);
  const imagesRef = useRef<HTMLFieldSetElement>(null);
  const queue = useRef<Job[]>([]);
  const running = useRef(0);
  const create = useCreateHeatmap();
  const creatives = useInfiniteQuery(creativeSourcesQueryOptions());
  const locations = useInfiniteQuery(locationSourcesQueryOptions());
  const renders = useInfiniteQuery(simulationSourcesQueryOptions());

  const full = selected.length >= MAX_IMAGES;
  const uploading = uploads.some((item) => !isSettled(item.state));

  // Errors: ours after a submit (they follow the fields as they are fixed), else the server's.
  const serverFields = isApiError(create.error) ? create.error.fields : {};
  const nameError = (() => {
    if (submitted && name.trim() === '') return t('heatmap.validation.nameRequired');
    const code = serverFields.name;
    if (!code) return null;
    return code === 'required' ? t('heatmap.validation.nameRequired') : t(fieldErrorKey(code));
  })();
  const imagesError = (() => {
    if (submitted && selected.length === 0) return t('heatmap.validation.imagesRequired');
    const code = serverFields.media_ids;
    if (!code) return null;
    if (code === 'required') return t('heatmap.validation.imagesRequired');
    if (code === 'too_many') return t('heatmap.validation.tooMany', { max: MAX_IMAGES });
    if (code === 'not_found') return t('heatmap.validation.mediaNotFound');
    return t(fieldErrorKey(code));
  })();
  // Anything not about these two fields (network, session, another field) goes in a banner.
  const otherError = create.isError && !serverFields.name && !serverFields.media_ids;

  const changed = () => {
    if (create.isError) create.reset();
  };

  const toggle = (mediaId: string) => {
    changed();
    setSelected((current) =>
      current.includes(mediaId) ? current.filter((id) => id !== mediaId) : current.length >= MAX_IMAGES ? current : [...current, mediaId],
    );
  };

  // ---------- Uploads (the creatives panel's queue, without creating creatives) ----------

  const dispatch = (itemId: string, event: UploadEvent) => setUploads((current) => applyToItem(current, itemId, event));

  const runJob = async ({ id: itemId, file }: Job) => {
    dispatch(itemId, { type: 'start' });
    try {
      const media = await uploadMedia(file, {
        onProgress: (loaded, total) => dispatch(itemId, { type: 'progress', loaded, total }),
      });
      dispatch(itemId, { type: 'uploaded' });
      dispatch(itemId, { type: 'created', resultId: media.id, size: { width: media.width, height: media.height } });
      setUploaded((current) => (current.some((image) => image.media.id === media.id) ? current : [...current, { media, name: baseName(media.original_name) || file.name }]));
      changed();
      setSelected((current) => (current.includes(media.id) || current.length >= MAX_IMAGES ? current : [...current, media.id]));
    } catch (error) {
      dispatch(itemId, { type: 'fail', ...errorInfo(error) });
    }
  };

  const pump = () => {
    while (running.current < UPLOAD_CONCURRENCY && queue.current.length > 0) {
      const job = queue.current.shift()!;
      running.current += 1;
      void runJob(job).finally(() => {
        running.current -= 1;
        pump();
      });
    }
  };

  const addFiles = (files: File[]) => {
    const jobs = files.map((file) => ({ id: `heatmap-upload-${++nextUploadId}`, file }));
    setUploads((current) => [
      ...current,
      ...jobs.map(({ id, file }) => ({ id, name: file.name, size: file.size, state: initialUploadState })),
    ]);
    queue.current.push(...jobs);
    pump();
  };

  // ---------- Submit ----------

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSubmitted(true);
    const trimmed = name.trim();
    if (trimmed === '' || selected.length === 0) {
      // Both messages show at once; focus goes to the first field to fix.
      if (trimmed === '') nameRef.current?.focus();
      else imagesRef.current?.focus();
      return;
    }
    create.mutate({ name: trimmed, media_ids: selected }, { onSuccess: onCreated });
  };

  const describedBy = (...idsOrNull: Array<string | false | null>) => idsOrNull.filter(Boolean).join(' ') || undefined;

  return (
    <form className="hm-form" onSubmit={submit} noValidate data-testid="heatmap-form">
      <div className="field hm-form__name">
        <Label htmlFor={ids.name}>{t('heatmap.form.name')}</Label>
        <Input
          ref={nameRef}
          id={ids.name}
          value={name}
          maxLength={MAX_NAME_LENGTH}
          autoComplete="off"
          aria-invalid={nameError ? true : undefined}
          aria-describedby={describedBy(nameError !== null && ids.nameError)}
          onChange={(event) => {
            changed();
            setName(event.target.value);
          }}
          data-testid="heatmap-name"
        />
        {nameError ? (
          <p id={ids.nameError} role="alert" className="form-error" data-testid="error-name">
            {nameError}
          </p>
        ) : null}
      </div>

      <fieldset
        ref={imagesRef}
        className="form-section hm-picker"
        tabIndex={-1}
        aria-invalid={imagesError ? true : undefined}
        aria-describedby={describedBy(ids.imagesHint, ids.count, imagesError !== null && ids.imagesError)}
      >
        <legend className="form-section__title">{t('heatmap.form.images')}</legend>
        <p id={ids.imagesHint} className="field__hint">
          {t('heatmap.form.imagesHint')} {t('heatmap.form.maxHint', { max: MAX_IMAGES })}
        </p>
        <p id={ids.count} className="hm-picker__count" role="status" data-testid="selected-count">
          {t('heatmap.form.selected', { count: selected.length })}
          {full ? ` ${t('heatmap.form.limitReached', { max: MAX_IMAGES })}` : ''}
        </p>
        {imagesError ? (
          <p id={ids.imagesError} role="alert" className="form-error" data-testid="error-images">
            {imagesError}
          </p>
        ) : null}

        <DropZone onFiles={addFiles} buttonLabel={t('heatmap.form.uploadButton')} testId="heatmap-drop-zone" />
        <UploadList items={uploads} />

        {uploaded.length > 0 ? (
          <PickerGroup
            title={t('heatmap.form.uploads')}
            images={uploaded}
            selected={selected}
            onToggle={toggle}
            full={full}
            testId="picker-uploads"
          />
        ) : null}
        <PickerGroup
          title={t('heatmap.form.creatives')}
          images={creatives.data ? creativeImages(creatives.data.pages) : []}
          selected={selected}
          onToggle={toggle}
          full={full}
          placeholder={<SourceState query={creatives} empty={t('heatmap.form.noCreatives')} />}
          footer={<MoreButton query={creatives} />}
          testId="picker-creatives"
        />
        <PickerGroup
          title={t('heatmap.form.locations')}
          images={locations.data ? locationImages(locations.data.pages) : []}
          selected={selected}
          onToggle={toggle}
          full={full}
          placeholder={<SourceState query={locations} empty={t('heatmap.form.noLocations')} />}
          footer={<MoreButton query={locations} />}
          testId="picker-locations"
        />
        <PickerGroup
          title={t('heatmap.form.renders')}
          images={renders.data ? renderImages(renders.data.pages) : []}
          selected={selected}
          onToggle={toggle}
          full={full}
          placeholder={<SourceState query={renders} empty={t('heatmap.form.noRenders')} />}
          footer={<MoreButton query={renders} />}
          testId="picker-renders"
        />
      </fieldset>

      {otherError ? <Banner variant="error">{t(apiErrorKey(create.error))}</Banner> : null}
      <div className="form-actions">
        <Button type="submit" disabled={create.isPending || uploading} data-testid="submit-heatmap">
          {create.isPending ? t('heatmap.form.submitting') : t('heatmap.form.submit')}
        </Button>
        {uploading ? <span className="field__hint">{t('heatmap.form.waitUploads')}</span> : null}
      </div>
    </form>
  );
}

type SourceQuery = UseInfiniteQueryResult<InfiniteData<Page<unknown>>>;

/** What a picker group shows instead of thumbnails: loading, an error with retry, or its empty text. */
function SourceState({ query, empty }: { query: SourceQuery; empty: string }): ReactNode {
  if (query.isPending) return <Spinner size="sm" />;
  if (query.isError) {
    return <QueryError error={query.error} onRetry={() => void query.refetch()} />;
  }
  return <p className="field__hint">{empty}</p>;
}

function MoreButton({ query }: { query: SourceQuery }) {
  const { t } = useTranslation();
  if (!query.hasNextPage) return null;
  return (
    <Button variant="secondary" size="sm" onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
      {t('common.loadMore')}
    </Button>
  );
}
