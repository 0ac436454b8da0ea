import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { FilePicker } from '@/components/file-picker';
import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { apiErrorKey, fieldErrorKey, isApiError } from '@/lib/api';
import fr from '@/locales/fr.json';

import { useImportInventory, type ImportError, type ImportOutcome } from '../api/import';

const INVENTORY_ACCEPT = '.csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const ZIP_ACCEPT = '.zip,application/zip';

/** The messages written for one column's code, where the generic field message would mislead. */
const ROW_ERRORS = new Set(Object.keys(fr.locations.import.rowErrors));
type RowErrorKey = keyof typeof fr.locations.import.rowErrors;
const REQUEST_ERRORS = new Set(Object.keys(fr.locations.import.requestErrors));
type RequestErrorKey = keyof typeof fr.locations.import.requestErrors;

type Progress = { dryRun: boolean; percent: number };

/** One refused row's problem, in words: the import's own message, or the field's. */
function useRowMessage() {
  const { t } = useTranslation();
  return (error: ImportError) => {
    const key = `${error.field}_${error.code}`;
    return ROW_ERRORS.has(key) ? t(`locations.import.rowErrors.${key as RowErrorKey}`) : t(fieldErrorKey(error.code));
  };
}

/** Why the request itself was refused, in words (which part, and what of it). */
function useRequestMessage() {
  const { t, i18n } = useTranslation();
  return (error: unknown) => {
    if (isApiError(error) && error.code === 'validation_failed') {
      const fields = error.fields;
      const limit = error.details.max_rows ?? error.details.max_entries;
      const max = typeof limit === 'number' ? limit.toLocaleString(i18n.language) : '';
      // A file without a name column is refused on `file` and `name`: the second says why.
      for (const field of ['name', 'file', 'photos']) {
        const key = `${field}_${fields[field]}`;
        if (fields[field] && REQUEST_ERRORS.has(key)) return t(`locations.import.requestErrors.${key as RequestErrorKey}`, { max });
      }
    }
    return t(apiErrorKey(error));
  };
}

/** The rows refused, by row and column. */
function ErrorTable({ errors }: { errors: ImportError[] }) {
  const { t } = useTranslation();
  const message = useRowMessage();
  return (
    <div className="import-errors__wrap">
      <table className="import-errors" data-testid="import-errors">
        <caption>{t('locations.import.errorsCaption')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('locations.import.row')}</th>
            <th scope="col">{t('locations.import.column')}</th>
            <th scope="col">{t('locations.import.problem')}</th>
          </tr>
        </thead>
        <tbody>
          {errors.map((error) => (
            <tr key={`${error.row}-${error.field}`}>
              <td className="import-errors__row">{error.row}</td>
              <td>
                {t(`locations.import.columns.${error.field}`)} <code className="import-errors__column">{error.field}</code>
              </td>
              <td>{message(error)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** How far the files are sent, then what the server is doing with them. */
function SendProgress({ progress }: { progress: Progress }) {
  const { t } = useTranslation();
  return (
    <div className="import__progress" role="status">
      <progress max={100} value={progress.percent} aria-label={t('locations.import.progressLabel')} />
      <span>
        {progress.percent < 100
          ? t('locations.import.sending', { percent: progress.percent })
          : progress.dryRun
            ? t('locations.import.checking')
            : t('locations.import.importing')}
      </span>
    </div>
  );
}

/**
 * The inventory import: a CSV or XLSX file and an optional ZIP of photos, first checked (a dry
 * run that shows how many locations would be made and each row's errors), then imported with
 * upload progress. Changing a file asks for a new check.
 */
export function InventoryImport() {
  const { t } = useTranslation();
  const [file, setFile] = useState<File | null>(null);
  const [photos, setPhotos] = useState<File | null>(null);
  const [progress, setProgress] = useState<Progress | null>(null);
  const [outcome, setOutcome] = useState<ImportOutcome | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  const mutation = useImportInventory();
  const requestMessage = useRequestMessage();

  const reset = () => {
    setOutcome(null);
    setFailure(null);
    mutation.reset();
  };

  const send = (dryRun: boolean) => {
    if (!file) return;
    setFailure(null);
    setProgress({ dryRun, percent: 0 });
    mutation.mutate(
      {
        request: { file, photos, dryRun },
        onProgress: (loaded, total) => setProgress({ dryRun, percent: total > 0 ? Math.round((loaded / total) * 100) : 0 }),
      },
      {
        onSuccess: (result) => {
          setProgress(null);
          setOutcome(result);
        },
        onError: (error) => {
          setProgress(null);
          setOutcome(null);
          setFailure(error);
        },
      },
    );
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    send(true);
  };

  const busy = progress !== null;
  const imported = outcome?.dryRun === false && outcome.errors.length === 0;
  const rowsToFix = outcome ? new Set(outcome.errors.map((error) => error.row)).size : 0;

  if (imported) {
    return (
      <div className="import" data-testid="import-done">
        <Banner variant="info">
          <strong>{t('locations.import.done', { count: outcome.created.length })}</strong> {t('locations.import.doneHint')}
        </Banner>
        <div className="form-actions">
          <Link to="/locations" className="ui-button ui-button--primary ui-button--md">
            {t('locations.import.viewList')}
          </Link>
          <Button
            variant="secondary"
            onClick={() => {
              setFile(null);
              setPhotos(null);
              reset();
            }}
          >
            {t('locations.import.another')}
          </Button>
        </div>
      </div>
    );
  }

  return (
    <div className="import">
      <p className="import__intro">{t('locations.import.intro')}</p>
      <details className="import__columns">
        <summary>{t('locations.import.columnsTitle')}</summary>
        <p>{t('locations.import.columnsHelp')}</p>
      </details>
      <form className="form-section import__form" onSubmit={onSubmit} noValidate>
        <FilePicker
          label={t('locations.import.file')}
          hint={t('locations.import.fileHint')}
          accept={INVENTORY_ACCEPT}
          fileName={file?.name ?? null}
          chooseLabel={t('locations.import.choose')}
          emptyLabel={t('locations.import.noFile')}
          disabled={busy}
          testId="import-file"
          onChange={(chosen) => {
            setFile(chosen);
            reset();
          }}
        />
        <FilePicker
          label={t('locations.import.photos')}
          hint={t('locations.import.photosHint')}
          accept={ZIP_ACCEPT}
          fileName={photos?.name ?? null}
          chooseLabel={t('locations.import.choose')}
          emptyLabel={t('locations.import.noFile')}
          disabled={busy}
          testId="import-photos"
          onChange={(chosen) => {
            setPhotos(chosen);
            reset();
          }}
        />
        <div className="form-actions">
          <Button type="submit" variant={outcome ? 'secondary' : 'primary'} disabled={busy || !file}>
            {outcome ? t('locations.import.checkAgain') : t('locations.import.check')}
          </Button>
        </div>
        {progress?.dryRun ? <SendProgress progress={progress} /> : null}
      </form>

      {failure ? <Banner variant="error">{requestMessage(failure)}</Banner> : null}

      {outcome && file ? (
        <section className="import__preview" aria-label={t('locations.import.preview')} data-testid="import-preview">
          <p className="import__rows">{t('locations.import.rows', { count: outcome.rows, file: file.name })}</p>
          {outcome.errors.length > 0 ? (
            <>
              <Banner variant="error">
                {outcome.dryRun ? null : <strong>{t('locations.import.refused')} </strong>}
                {t('locations.import.toFix', { count: rowsToFix })}
              </Banner>
              <ErrorTable errors={outcome.errors} />
            </>
          ) : (
            <>
              <Banner variant="info">{t('locations.import.ready', { count: outcome.rows })}</Banner>
              <div className="form-actions">
                <Button onClick={() => send(false)} disabled={busy} data-testid="import-submit">
                  {t('locations.import.import', { count: outcome.rows })}
                </Button>
              </div>
              {progress && !progress.dryRun ? <SendProgress progress={progress} /> : null}
            </>
          )}
        </section>
      ) : null}
    </div>
  );
}
