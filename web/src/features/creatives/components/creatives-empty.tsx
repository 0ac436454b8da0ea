import { useTranslation } from 'react-i18next';

/** Empty state of the creatives list. */
export function CreativesEmpty() {
  const { t } = useTranslation();
  return <p className="empty-state">{t('creatives.empty')}</p>;
}
