import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/dialog';
import { Spinner } from '@/components/ui/spinner';
import { apiErrorKey } from '@/lib/api';
import { useToast } from '@/lib/toast';
import { useWorkspace } from '@/lib/workspace';

import { locationQueryOptions, useDeleteLocation, type Location } from '../api/locations';

import { LocationForm } from './location-form';

export type LocationEditorProps = {
  id: string;
  onSaved: (location: Location) => void;
  onDeleted: () => void;
};

/**
 * Loads a location into the form, with a delete button behind a confirmation; a viewer of the
 * workspace sees the form read-only.
 */
export function LocationEditor({ id, onSaved, onDeleted }: LocationEditorProps) {
  const { t } = useTranslation();
  const query = useQuery(locationQueryOptions(id));
  const remove = useDeleteLocation();
  const toast = useToast();
  const [confirming, setConfirming] = useState(false);
  const { canEdit } = useWorkspace();

  if (query.isPending) return <Spinner />;
  if (query.isError) return <Banner variant="error">{t(apiErrorKey(query.error))}</Banner>;
  const location = query.data;

  return (
    <>
      <LocationForm
        location={location}
        onSaved={onSaved}
        readOnly={!canEdit}
        extraActions={
          <>
            {canEdit ? (
              <Link
                className="ui-button ui-button--secondary ui-button--md"
                to={`/simulation?location=${encodeURIComponent(location.id)}`}
                data-testid="simulate-location"
              >
                {t('locations.simulate')}
              </Link>
            ) : null}
            {location.photo_media_id ? (
              <Link
                className="ui-button ui-button--secondary ui-button--md"
                to={`/heatmap/${encodeURIComponent(location.photo_media_id)}`}
                data-testid="location-heatmap"
              >
                {t('locations.heatmap')}
              </Link>
            ) : null}
            {canEdit ? (
              <Button variant="danger" onClick={() => setConfirming(true)} data-testid="delete-location">
                {t('locations.delete')}
              </Button>
            ) : null}
          </>
        }
      />
      {confirming ? (
        <ConfirmDialog
          title={t('locations.deleteTitle')}
          confirmLabel={t('common.delete')}
          busy={remove.isPending}
          error={remove.isError ? t(apiErrorKey(remove.error)) : null}
          onCancel={() => {
            remove.reset();
            setConfirming(false);
          }}
          onConfirm={() =>
            remove.mutate(location.id, {
              onSuccess: () => {
                toast.show(t('toast.locationDeleted', { name: location.name }));
                onDeleted();
              },
            })
          }
        >
          <p>{t('locations.deleteBody', { name: location.name })}</p>
          <p>{t('locations.deleteSimulations', { count: location.simulation_count ?? 0 })}</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}
