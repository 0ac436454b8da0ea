//! What a result viewer shows over the image: the view (original, heatmap,
//! fog), the heatmap's and the fog's own opacities, and which map (the first
//! glance or the exploration). A comparison shares one state between its images;
//! an item's page shares it between the viewer and the analysis text.
import { useState } from 'react';

import type { HeatmapResult, Hotspot, MapAnalysis } from '../api/heatmaps';

export type ViewMode = 'original' | 'heatmap' | 'fog';
export const MODES: ViewMode[] = ['original', 'heatmap', 'fog'];
/**
 * Which map is shown: the fixations that start within the first second (what a
 * glance takes in) or the whole of about three seconds of free viewing.
 */
export type Moment = 'glance' | 'exploration';
export const MOMENTS: Moment[] = ['glance', 'exploration'];
/** Opacities (%) a result opens with. */
const DEFAULT_OPACITY = { heatmap: 60, fog: 85 };

/** What is shown over the image: the view, the heatmap's and the fog's own opacities (%), and the map. */
export type ViewState = {
  mode: ViewMode;
  opacity: number;
  moment: Moment;
  setMode: (mode: ViewMode) => void;
  setOpacity: (value: number) => void;
  setMoment: (moment: Moment) => void;
};

/** The view state of a viewer (or of a comparison, shared by its images). */
export function useViewState(): ViewState {
  const [mode, setMode] = useState<ViewMode>('heatmap');
  const [moment, setMoment] = useState<Moment>('exploration');
  // The heatmap and the fog keep their own opacity: the fog needs more to show anything.
  const [opacities, setOpacities] = useState(DEFAULT_OPACITY);
  const opacity = mode === 'fog' ? opacities.fog : opacities.heatmap;
  const setOpacity = (value: number) =>
    setOpacities((current) => (mode === 'fog' ? { ...current, fog: value } : { ...current, heatmap: value }));
  return { mode, opacity, moment, setMode, setOpacity, setMoment };
}

/** Whether a result has a first glance to show (its analysis and its images: model v3 results). */
export function hasGlance(result: HeatmapResult): boolean {
  return Boolean(result.glance && result.urls.glance);
}

/** One map of a result as the page shows it: its analysis, overlay, fog and hotspots. */
export type ShownMap = {
  moment: Moment;
  analysis: MapAnalysis;
  overlay: string;
  fog: string;
  hotspots: Hotspot[];
};

/** The map of `moment`, or the exploration when the result has no first glance. */
export function shownMap(result: HeatmapResult, moment: Moment): ShownMap {
  if (moment === 'glance' && result.glance && result.urls.glance) {
    const { glance } = result;
    return { moment, analysis: glance, overlay: result.urls.glance.overlay, fog: result.urls.glance.fog, hotspots: glance.hotspots };
  }
  return { moment: 'exploration', analysis: result, overlay: result.urls.overlay, fog: result.urls.fog, hotspots: result.hotspots };
}
