import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { ContentLayout } from '@/components/layouts/content-layout';

export default function NotFoundRoute() {
  const { t } = useTranslation();
  return (
    <ContentLayout title={t('notFound.title')}>
      <p>{t('notFound.body')}</p>
      <p>
        <Link to="/">{t('notFound.home')}</Link>
      </p>
    </ContentLayout>
  );
}
