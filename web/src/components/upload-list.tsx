import { useTranslation } from 'react-i18next';

import { cn } from '@/lib/cn';
import { errorMessage } from '@/lib/error-message';
import { isLowResolution, MIN_SHORT_SIDE } from '@/lib/resolution';
import { progressPercent, type UploadItem } from '@/lib/upload-machine';

/**
 * One line per file: name, a progress bar, and its status or translated error (with the limits
 * the server gave, lib/error-message.ts); an image stored but too small for a sharp display gets a
 * warning under its line.
 */
export function UploadList({ items }: { items: UploadItem[] }) {
  const { t, i18n } = useTranslation();
  if (items.length === 0) return null;
  const number = (value: number) => new Intl.NumberFormat(i18n.language).format(value);
  return (
    <ul className="upload-list" aria-label={t('upload.listLabel')} data-testid="upload-list">
      {items.map((item) => {
        const { state } = item;
        const percent = progressPercent(state);
        const status =
          state.status === 'uploading'
            ? t('upload.status.uploading', { percent })
            : state.status === 'failed'
              ? errorMessage(t, i18n.language, state)
              : t(`upload.status.${state.status}`);
        const small = state.status === 'done' && state.size && isLowResolution(state.size) ? state.size : null;
        return (
          <li key={item.id} className={cn('upload-item', `upload-item--${state.status}`)} data-status={state.status}>
            <span className="upload-item__name">{item.name}</span>
            {state.status !== 'failed' ? (
              <progress
                className="upload-item__bar"
                max={100}
                value={percent}
                aria-valuenow={percent}
                aria-valuemin={0}
                aria-valuemax={100}
                aria-label={t('upload.progressLabel', { name: item.name })}
              />
            ) : null}
            <span className={cn('upload-item__status', state.status === 'failed' && 'form-error')} role={state.status === 'failed' ? 'alert' : undefined}>
              {status}
            </span>
            {small ? (
              <p className="upload-item__warning" role="status" data-testid="upload-warning">
                {t('upload.lowResolution', { width: number(small.width), height: number(small.height), min: number(MIN_SHORT_SIDE) })}
              </p>
            ) : null}
          </li>
        );
      })}
    </ul>
  );
}
