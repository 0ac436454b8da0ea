import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useParams } from 'react-router';

import { ContentLayout } from '@/components/layouts/content-layout';
import { HelpArticleView } from '@/features/help/components/help-article';

export default function HelpArticleRoute() {
  const { t } = useTranslation();
  const { slug = '' } = useParams();
  const [title, setTitle] = useState<string | null>(null);
  return (
    <ContentLayout title={title ?? t('help.title')}>
      <HelpArticleView key={slug} slug={slug} onTitle={setTitle} />
    </ContentLayout>
  );
}
