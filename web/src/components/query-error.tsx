//! What a page or panel shows when its data could not be loaded: the translated
//! reason and a retry button, in an error banner (role=alert).
import { useTranslation } from 'react-i18next';

import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { apiErrorKey } from '@/lib/api';

export function QueryError({ error, onRetry }: { error: unknown; onRetry: () => void }) {
  const { t } = useTranslation();
  return (
    <Banner variant="error">
      {t(apiErrorKey(error))}{' '}
      <Button variant="link" onClick={onRetry}>
        {t('common.retry')}
      </Button>
    </Banner>
  );
}
