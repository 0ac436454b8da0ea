import { useTranslation } from 'react-i18next';

import { apiErrorKey } from '@/lib/api';

/** Why a file could not be made or downloaded, next to the button that asked for it. */
export function DownloadError({ error }: { error: unknown }) {
  const { t } = useTranslation();
  if (!error) return null;
  return (
    <span role="alert" className="form-error">
      {t(apiErrorKey(error))}
    </span>
  );
}
