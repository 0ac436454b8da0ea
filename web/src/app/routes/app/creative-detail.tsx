import { useTranslation } from 'react-i18next';
import { useNavigate, useParams } from 'react-router';

import { ContentLayout } from '@/components/layouts/content-layout';
import { CreativeDetail } from '@/features/creatives/components/creative-detail';
import { DISCARD_CHANGES } from '@/lib/use-unsaved-changes';

export default function CreativeDetailRoute() {
  const { t } = useTranslation();
  const { id = '' } = useParams();
  const navigate = useNavigate();
  return (
    <ContentLayout title={t('creatives.detailTitle')}>
      <CreativeDetail key={id} id={id} onDeleted={() => void navigate('/creatives', { replace: true, state: DISCARD_CHANGES })} />
    </ContentLayout>
  );
}
