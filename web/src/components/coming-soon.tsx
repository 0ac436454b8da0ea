import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** An honest placeholder body for pages a later release fills in. */
export function ComingSoon({ children }: { children?: ReactNode }) {
  const { t } = useTranslation();
  return (
    <div className="coming-soon" data-testid="coming-soon">
      <p>{t('common.comingSoon')}</p>
      {children}
    </div>
  );
}
