//! The analysis in plain words, written in the browser from the structured
//! result (so it follows the interface language, and the server only sends
//! numbers): hotspots in predicted viewing order with where they are and
//! their share of attention, faces and text-like regions with their shares,
//! and two to four pieces of advice chosen by the rules below.
import type { TFunction } from 'i18next';

import type { HeatmapResult, Region } from '../api/heatmaps';

import { nearEdge, positionOf, type Position } from './attention';
import { formatPercent, formatRatio } from './format';

export type AnalysisInput = Pick<HeatmapResult, 'score' | 'focus' | 'clarity' | 'entropy' | 'hotspots' | 'faces' | 'texts'>;

export type AdviceId =
  | 'scattered'
  | 'competing'
  | 'clutter'
  | 'textLow'
  | 'facesStrong'
  | 'edge'
  | 'textStrong'
  | 'strong'
  | 'noText'
  | 'firstLook'
  | 'compare';

/** Several regions taken together: shares and areas add up (they do not overlap in practice). */
export function combined(regions: Region[]): { share: number; area: number; relative: number } {
  const share = regions.reduce((sum, region) => sum + region.share, 0);
  const area = regions.reduce((sum, region) => sum + region.area, 0);
  return { share, area, relative: area > 0 ? share / area : 0 };
}

/**
 * Advice rules in priority order. The first `MAX_ADVICE` that apply are
 * given; the last two always apply, so there are at least two.
 *
 * - scattered: score < 40 — nothing leads the eye;
 * - competing: clarity < 50 with at least two hotspots — more than two areas'
 *   worth of competition (clarity = 100 / effective number of hotspots);
 * - clutter: entropy ≥ 0.9 and focus < 30 — attention spread almost evenly;
 * - textLow: text found, and its attention is below its size share (relative < 1);
 * - facesStrong: faces take at least 10 % of all attention;
 * - edge: the first hotspot's peak lies within 10 % of an edge (cropping risk);
 * - textStrong: text gets at least twice its size share;
 * - strong: score ≥ 70 — the image leads the eye well;
 * - noText: no text-like region found;
 * - firstLook, compare: general advice, always.
 */
const ADVICE_RULES: Array<{ id: AdviceId; applies: (result: AnalysisInput) => boolean }> = [
  { id: 'scattered', applies: (r) => r.score < 40 },
  { id: 'competing', applies: (r) => r.clarity < 50 && r.hotspots.length >= 2 },
  { id: 'clutter', applies: (r) => r.entropy >= 0.9 && r.focus < 30 },
  { id: 'textLow', applies: (r) => r.texts.length > 0 && combined(r.texts).relative < 1 },
  { id: 'facesStrong', applies: (r) => combined(r.faces).share >= 0.1 },
  { id: 'edge', applies: (r) => r.hotspots.length > 0 && nearEdge(r.hotspots[0].x, r.hotspots[0].y) },
  { id: 'textStrong', applies: (r) => r.texts.length > 0 && combined(r.texts).relative >= 2 },
  { id: 'strong', applies: (r) => r.score >= 70 },
  { id: 'noText', applies: (r) => r.texts.length === 0 },
  { id: 'firstLook', applies: () => true },
  { id: 'compare', applies: () => true },
];

export const MAX_ADVICE = 4;

/** The advice that applies to a result, most important first (2 to 4). */
export function adviceFor(result: AnalysisInput): AdviceId[] {
  return ADVICE_RULES.filter((rule) => rule.applies(result))
    .slice(0, MAX_ADVICE)
    .map((rule) => rule.id);
}

export type Analysis = {
  /** Where the eye lands first and where it goes next (or that nothing stands out). */
  summary: string;
  /** One line per hotspot, in viewing order. */
  hotspots: string[];
  faces: string;
  texts: string;
  advice: string[];
};

function capitalise(text: string, language: string): string {
  return text.charAt(0).toLocaleUpperCase(language) + text.slice(1);
}

/** The analysis of one result in the language of `t` (`language` formats the numbers). */
export function describeAttention(result: AnalysisInput, t: TFunction, language: string): Analysis {
  const percent = (share: number) => formatPercent(share, language);
  const hotspots = [...result.hotspots].sort((a, b) => a.rank - b.rank);
  const where = (x: number, y: number) => t(`heatmap.analysis.positions.${positionOf(x, y)}`);

  // Hotspots in the same ninth of the image are named once: the summary gives each place with
  // the attention of all its hotspots, and a numbered line says which earlier hotspot it is near.
  const cells = hotspots.map((hotspot) => positionOf(hotspot.x, hotspot.y));
  let summary: string;
  if (hotspots.length === 0) {
    summary = t('heatmap.analysis.none');
  } else {
    const places = new Map<string, number>();
    hotspots.forEach((hotspot, index) => places.set(cells[index], (places.get(cells[index]) ?? 0) + hotspot.share));
    const [[firstCell, firstShare], ...rest] = [...places];
    summary = t('heatmap.analysis.first', { position: t(`heatmap.analysis.positions.${firstCell as Position}`), share: percent(firstShare) });
    if (rest.length > 0) {
      const next = rest
        .map(([cell, share]) => t('heatmap.analysis.place', { position: t(`heatmap.analysis.positions.${cell as Position}`), share: percent(share) }))
        .join(t('heatmap.analysis.joiner'));
      summary += ` ${t('heatmap.analysis.next', { places: next })}`;
    }
  }

  const regions = (key: 'faces' | 'texts', list: Region[]) => {
    const total = combined(list);
    return t(`heatmap.analysis.${key}`, {
      count: list.length,
      share: percent(total.share),
      relative: formatRatio(total.relative, language),
    });
  };

  return {
    summary,
    hotspots: hotspots.map((hotspot, index) => {
      const earlier = cells.indexOf(cells[index]);
      const values = { position: where(hotspot.x, hotspot.y), share: percent(hotspot.share), area: percent(hotspot.area) };
      return capitalise(
        earlier < index
          ? t('heatmap.analysis.hotspotNear', { ...values, n: hotspots[earlier].rank })
          : t('heatmap.analysis.hotspot', values),
        language,
      );
    }),
    faces: regions('faces', result.faces),
    texts: regions('texts', result.texts),
    advice: adviceFor(result).map((id) => t(`heatmap.advice.${id}`)),
  };
}
