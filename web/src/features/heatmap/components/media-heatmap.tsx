import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { QueryError } from '@/components/query-error';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { apiErrorKey, type Media } from '@/lib/api';
import { formatDate } from '@/lib/dates';
import { useWorkspace } from '@/lib/workspace';

import { heatmapKeys, MAX_NAME_LENGTH, mediaHeatmapQueryOptions, useCreateHeatmap, type MediaHeatmap } from '../api/heatmaps';
import { baseName } from '../lib/format';

import { HeatmapItemView } from './heatmap-item-view';

/**
 * `/heatmap/:mediaId`: the latest heatmap result of one image, or a button
 * that makes one (a heatmap named after the image, with that image alone)
 * and then shows its progress in place.
 */
export function MediaHeatmapView({ mediaId }: { mediaId: string }) {
  const { t } = useTranslation();
  const query = useQuery(mediaHeatmapQueryOptions(mediaId));

  if (query.isPending) return <Spinner />;
  if (query.isError) {
    return <QueryError error={query.error} onRetry={() => void query.refetch()} />;
  }
  const { media, heatmap, item } = query.data;
  if (!heatmap || !item) return <GeneratePanel mediaId={mediaId} media={media} />;
  return (
    <>
      <p>
        <Link to={`/heatmap/results/${encodeURIComponent(heatmap.id)}`} data-testid="open-heatmap">
          {t('heatmap.media.openHeatmap', { name: heatmap.name })}
        </Link>
      </p>
      <HeatmapItemView item={item} heatmapId={heatmap.id} />
    </>
  );
}

/** The name of a heatmap made from one image: the file name without extension, or a dated default. */
function heatmapName(media: Media, fallback: string): string {
  return (baseName(media.original_name) || fallback).slice(0, MAX_NAME_LENGTH);
}

function GeneratePanel({ mediaId, media }: { mediaId: string; media: Media }) {
  const { t, i18n } = useTranslation();
  const queryClient = useQueryClient();
  const create = useCreateHeatmap();
  const name = baseName(media.original_name) || media.id;
  const { canEdit } = useWorkspace();

  const generate = () => {
    const fallback = t('heatmap.media.defaultName', { date: formatDate(new Date(), i18n.language) });
    create.mutate(
      { name: heatmapName(media, fallback), media_ids: [media.id] },
      {
        // Show the new item's progress at once; the live stream and the refetch take it from there.
        onSuccess: (heatmap) =>
          queryClient.setQueryData<MediaHeatmap>(heatmapKeys.media(mediaId), {
            media,
            heatmap: { id: heatmap.id, name: heatmap.name, created_at: heatmap.created_at },
            item: heatmap.items.find((candidate) => candidate.source.id === media.id) ?? heatmap.items[0] ?? null,
          }),
      },
    );
  };

  return (
    <div className="hm-media">
      <img className="hm-media__image" src={media.urls.preview} alt={t('heatmap.media.imageAlt', { name })} width={media.width} height={media.height} />
      <div className="hm-media__side">
        <p>{t('heatmap.media.none')}</p>
        {canEdit ? (
          <Button onClick={generate} disabled={create.isPending} data-testid="generate-heatmap">
            {create.isPending ? t('heatmap.media.generating') : t('heatmap.media.generate')}
          </Button>
        ) : null}
        {create.isError ? (
          <p role="alert" className="form-error">
            {t(apiErrorKey(create.error))}
          </p>
        ) : null}
      </div>
    </div>
  );
}
