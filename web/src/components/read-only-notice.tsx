import { useTranslation } from 'react-i18next';

/**
 * "Read only", above the library's pages for a viewer of the workspace: what they can still do
 * (look, export, download). The controls that change things are not shown to them.
 */
export function ReadOnlyNotice() {
  const { t } = useTranslation();
  return (
    <p className="read-only-notice" role="status" data-testid="read-only-notice">
      <span className="badge read-only-notice__badge">{t('workspace.readOnly.badge')}</span>
      <span>{t('workspace.readOnly.body')}</span>
    </p>
  );
}

/** In place of a page that only makes something (a new location, an import, a new heatmap), for a viewer. */
export function CannotChange() {
  const { t } = useTranslation();
  return (
    <p className="empty-state" data-testid="cannot-change">
      {t('workspace.readOnly.cannotCreate')}
    </p>
  );
}
