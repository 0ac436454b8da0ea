//! Drawing areas of interest on a result: each rectangle or polygon drawn is saved at once.
import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { useCreateAoi, type Aoi, type AoiPoint, type HeatmapItem, type Rect } from '../api/heatmaps';

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

/** What the pointer draws on a result: rectangles (drag) or polygons (a click per corner). */
export type DrawTool = 'rect' | 'polygon';

/** The bounding box of some corners. */
function bounds(points: AoiPoint[]): Rect {
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => p.y);
  const [x, y] = [Math.min(...xs), Math.min(...ys)];
  return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
}

/**
 * Drawing on a result: each rectangle or polygon drawn is saved at once as an area named
 * "Zone n" (renamed in the list), and its box shown dashed while it is being saved.
 */
export function useAoiDrawing({ heatmapId, item }: Target) {
  const { t } = useTranslation();
  const create = useCreateAoi();
  const [tool, setTool] = useState<DrawTool>('rect');
  const save = (shape: { rect: Rect } | { points: AoiPoint[] }) =>
    create.mutate({
      heatmapId,
      itemId: item.id,
      name: freeName(item.aois, (n) => t('heatmap.areas.defaultName', { n })),
      shape,
    });
  const onDraw = (rect: Rect) => save({ rect });
  const onDrawPolygon = (points: AoiPoint[]) => save({ points });
  const variables = create.variables;
  const pending =
    create.isPending && variables
      ? 'rect' in variables.shape
        ? variables.shape.rect
        : bounds(variables.shape.points)
      : null;
  return { onDraw, onDrawPolygon, tool, setTool, pending, create };
}
