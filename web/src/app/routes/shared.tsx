import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';

import { LanguageSwitch } from '@/components/language-switch';
import { SharedHeatmap } from '@/features/heatmap/components/shared-heatmap';
import { ThemeSwitch } from '@/features/theme/components/theme-switch';

/** `/shared/:token`: a heatmap opened from a share link, with or without an account. */
export default function SharedRoute() {
  const { t } = useTranslation();
  const { token = '' } = useParams();
  useEffect(() => {
    document.title = `${t('shared.title')} · ${t('app.name')}`;
  }, [t]);
  return (
    <div className="shell">
      <header className="topbar">
        <span className="brand">{t('app.name')}</span>
        <div className="topbar__prefs" role="group" aria-label={t('settings.label')}>
          <LanguageSwitch />
          <ThemeSwitch />
        </div>
      </header>
      <main id="main" className="shell__main" tabIndex={-1}>
        <SharedHeatmap key={token} token={token} />
      </main>
    </div>
  );
}
