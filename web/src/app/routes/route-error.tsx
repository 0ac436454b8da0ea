import { useTranslation } from 'react-i18next';
import { useRouteError } from 'react-router';

import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';

/** Last-resort screen when a page throws while rendering or its chunk fails to load. */
export function RouteError() {
  const { t } = useTranslation();
  const error = useRouteError();
  console.error(error);
  return (
    <main className="full-screen-center route-error">
      <Banner variant="error">{t('common.error')}</Banner>
      <Button variant="secondary" onClick={() => window.location.reload()}>
        {t('common.reload')}
      </Button>
    </main>
  );
}
