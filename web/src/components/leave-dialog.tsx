import { useTranslation } from 'react-i18next';
import type { useBlocker } from 'react-router';

import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';

/** The question asked when leaving with unsaved changes. */
export function LeaveDialog({ blocker }: { blocker: ReturnType<typeof useBlocker> }) {
  const { t } = useTranslation();
  if (blocker.state !== 'blocked') return null;
  return (
    <Dialog
      role="alertdialog"
      title={t('unsaved.title')}
      onClose={() => blocker.reset()}
      footer={
        <>
          <Button variant="secondary" onClick={() => blocker.reset()} data-autofocus data-testid="stay">
            {t('unsaved.stay')}
          </Button>
          <Button variant="danger" onClick={() => blocker.proceed()} data-testid="leave">
            {t('unsaved.leave')}
          </Button>
        </>
      }
    >
      <p>{t('unsaved.body')}</p>
    </Dialog>
  );
}
