import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';

import { ContentLayout } from '@/components/layouts/content-layout';
import { LocationEditor } from '@/features/locations/components/location-editor';
import { LocationForm } from '@/features/locations/components/location-form';
import { DISCARD_CHANGES } from '@/lib/use-unsaved-changes';

/** `/locations/new` (create) and `/locations/:id` (edit). */
export default function LocationEditRoute() {
  const { t } = useTranslation();
  const { id } = useParams();
  const navigate = useNavigate();
  const back = () => void navigate('/locations');
  return (
    <ContentLayout title={id ? t('locations.editTitle') : t('locations.newTitle')}>
      <p>
        <Link to="/locations">{t('locations.back')}</Link>
      </p>
      {id ? (
        <LocationEditor key={id} id={id} onSaved={back} onDeleted={() => void navigate('/locations', { replace: true, state: DISCARD_CHANGES })} />
      ) : (
        <LocationForm onSaved={back} />
      )}
    </ContentLayout>
  );
}
