//! Drawing areas of interest on a result: each rectangle drawn is saved at once.
import { useTranslation } from 'react-i18next';

import { useCreateAoi, type Aoi, type HeatmapItem, type Rect } from '../api/heatmaps';

import { nameKey } from './aoi';

type Target = { heatmapId: string; item: HeatmapItem };

/** The first name of the form "Zone n" not used on the item. */
function freeName(aois: Aoi[], make: (n: number) => string): string {
  const taken = new Set(aois.map((aoi) => nameKey(aoi.name)));
  for (let n = 1; ; n++) {
    const name = make(n);
    if (!taken.has(nameKey(name))) return name;
  }
}

/**
 * Drawing on a result: each rectangle drawn is saved at once as an area named
 * "Zone n" (renamed in the list), and shown dashed while it is being saved.
 */
export function useAoiDrawing({ heatmapId, item }: Target) {
  const { t } = useTranslation();
  const create = useCreateAoi();
  const onDraw = (rect: Rect) =>
    create.mutate({
      heatmapId,
      itemId: item.id,
      name: freeName(item.aois, (n) => t('heatmap.areas.defaultName', { n })),
      shape: { rect },
    });
  const variables = create.variables;
  const pending = create.isPending && variables && 'rect' in variables.shape ? variables.shape.rect : null;
  return { onDraw, pending, create };
}
