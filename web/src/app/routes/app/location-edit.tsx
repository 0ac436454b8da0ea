import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';

import { ContentLayout } from '@/components/layouts/content-layout';
import { CannotChange } from '@/components/read-only-notice';
import { LocationEditor } from '@/features/locations/components/location-editor';
import { LocationForm } from '@/features/locations/components/location-form';
import { DISCARD_CHANGES } from '@/lib/use-unsaved-changes';
import { useWorkspace } from '@/lib/workspace';

/** `/locations/new` (create) and `/locations/:id` (edit; a viewer of the workspace reads it). */
export default function LocationEditRoute() {
  const { t } = useTranslation();
  const { id } = useParams();
  const navigate = useNavigate();
  const back = () => void navigate('/locations');
  const { canEdit } = useWorkspace();
  return (
    <ContentLayout title={id ? (canEdit ? t('locations.editTitle') : t('locations.viewTitle')) : t('locations.newTitle')}>
      <p>
        <Link to="/locations">{t('locations.back')}</Link>
      </p>
      {id ? (
        <LocationEditor key={id} id={id} onSaved={back} onDeleted={() => void navigate('/locations', { replace: true, state: DISCARD_CHANGES })} />
      ) : canEdit ? (
        <LocationForm onSaved={back} />
      ) : (
        <CannotChange />
      )}
    </ContentLayout>
  );
}
