//! How the heatmap pages name an image: as the user named its creative,
//! location or simulation, else by its file name without the extension, else
//! by its place in the heatmap.
import type { TFunction } from 'i18next';

import type { HeatmapItem, SourceLabel } from '../api/heatmaps';

import { baseName } from './format';

export function itemName(item: Pick<HeatmapItem, 'label' | 'source' | 'position'>, t: TFunction): string {
  return item.label?.name || baseName(item.source.original_name) || t('heatmap.item.imageN', { n: item.position + 1 });
}

/** The page of what the image is (the creative, the location, the simulation). */
export function labelPath(label: SourceLabel): string {
  const id = encodeURIComponent(label.id);
  if (label.kind === 'creative') return `/creatives/${id}`;
  if (label.kind === 'location') return `/locations/${id}`;
  return `/simulation/${id}`;
}
