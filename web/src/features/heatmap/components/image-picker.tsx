import { useId, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

import { cn } from '@/lib/cn';

import type { PickerImage } from '../api/sources';

export type PickerGroupProps = {
  title: string;
  images: PickerImage[];
  /** Media ids in the order they were picked. */
  selected: string[];
  onToggle: (mediaId: string) => void;
  /** No more images can be picked (only unpicking stays possible). */
  full: boolean;
  /** Shown when the group has no image (loading, error or empty). */
  placeholder?: ReactNode;
  /** Under the grid (e.g. "Show more"). */
  footer?: ReactNode;
  testId?: string;
};

/**
 * One group of the image picker (added images, creatives, location photos):
 * a grid of thumbnails, each a toggle button (`aria-pressed`) named after its
 * image. A picked image shows its place in the selection, which is the order
 * of the results.
 */
export function PickerGroup({ title, images, selected, onToggle, full, placeholder, footer, testId }: PickerGroupProps) {
  const titleId = useId();
  return (
    <div className="hm-picker__group" role="group" aria-labelledby={titleId} data-testid={testId}>
      <h3 id={titleId} className="hm-picker__title">
        {title}
      </h3>
      {images.length === 0 ? (
        placeholder
      ) : (
        <ul className="hm-picker__grid">
          {images.map((image) => {
            const order = selected.indexOf(image.media.id);
            return (
              <li key={image.media.id}>
                <PickerTile image={image} order={order} disabled={order < 0 && full} onToggle={onToggle} />
              </li>
            );
          })}
        </ul>
      )}
      {footer}
    </div>
  );
}

type PickerTileProps = { image: PickerImage; order: number; disabled: boolean; onToggle: (mediaId: string) => void };

function PickerTile({ image, order, disabled, onToggle }: PickerTileProps) {
  const { t } = useTranslation();
  const metaId = useId();
  const picked = order >= 0;
  return (
    <button
      type="button"
      className={cn('hm-tile', picked && 'hm-tile--picked')}
      aria-pressed={picked}
      aria-describedby={metaId}
      disabled={disabled}
      onClick={() => onToggle(image.media.id)}
      data-testid="picker-image"
      data-media-id={image.media.id}
    >
      <img className="hm-tile__image" src={image.media.urls.thumbnail} alt="" loading="lazy" width={image.media.width} height={image.media.height} />
      <span className="hm-tile__name">{image.name}</span>
      <span id={metaId} className="hm-tile__meta" aria-hidden="true">
        {t('heatmap.form.dimensions', { width: image.media.width, height: image.media.height })}
      </span>
      {picked ? (
        <span className="hm-tile__order" aria-hidden="true">
          {order + 1}
        </span>
      ) : null}
    </button>
  );
}
