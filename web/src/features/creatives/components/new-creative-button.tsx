import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/button';

/** The "New Creative" call to action; enabled when uploads arrive. */
export function NewCreativeButton() {
  const { t } = useTranslation();
  return (
    <Button disabled data-testid="new-creative">
      {t('creatives.new')}
    </Button>
  );
}
