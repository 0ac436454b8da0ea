//! Files made on the server from results: PNG exports of one image or of variants side by side,
//! and PDF reports (docs/architecture/heatmaps.md, "Exports" and "PDF report"), downloaded as
//! files to save.

import { queryString } from '@/lib/api';

export type ImageExport = 'overlay' | 'fog' | 'side_by_side';
/** Which map an export draws (`map`): the first glance or the exploration (the server's default). */
export type ExportMap = 'glance' | 'exploration';

/** The language of an export's caption band: the interface's. */
const captionLang = (language: string) => (language.startsWith('en') ? 'en' : undefined);

/**
 * `GET /heatmaps/{id}/items/{item}/export.png`: one image's view (at `opacity`, 0..1) or its three
 * views side by side, of the first glance's map or the exploration's, with its caption band
 * (name, score, map, areas, the agency's branding) in the interface's language.
 */
export function imageExportPath(
  heatmapId: string,
  itemId: string,
  view: ImageExport,
  opacity?: number,
  areas = true,
  map: ExportMap = 'exploration',
  language = 'fr',
): string {
  return `/heatmaps/${encodeURIComponent(heatmapId)}/items/${encodeURIComponent(itemId)}/export.png${queryString({
    view,
    map: map === 'glance' ? map : undefined,
    opacity: opacity === undefined ? undefined : String(opacity),
    areas: areas ? '1' : '0',
    lang: captionLang(language),
  })}`;
}

/**
 * `GET /heatmaps/{id}/compare.png`: the variants' heatmaps (or fogs) side by side at one height,
 * each with its caption under it.
 */
export function compareExportPath(
  heatmapId: string,
  itemIds: string[],
  view: 'overlay' | 'fog',
  opacity?: number,
  map: ExportMap = 'exploration',
  language = 'fr',
): string {
  return `/heatmaps/${encodeURIComponent(heatmapId)}/compare.png${queryString({
    items: itemIds.join(','),
    view,
    map: map === 'glance' ? map : undefined,
    opacity: opacity === undefined ? undefined : String(opacity),
    lang: captionLang(language),
  })}`;
}

/** `GET /heatmaps/{id}/report.pdf`: the whole heatmap, or the chosen images in that order. */
export function reportPath(heatmapId: string, language: string, itemIds?: string[]): string {
  const lang = language.startsWith('en') ? 'en' : 'fr';
  return `/heatmaps/${encodeURIComponent(heatmapId)}/report.pdf${queryString({ lang, items: itemIds?.join(',') })}`;
}
