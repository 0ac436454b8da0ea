//! What a result viewer shows over the image: the view (original, heatmap,
//! fog) and the heatmap's and the fog's own opacities. A comparison shares one
//! state between its images.
import { useState } from 'react';

export type ViewMode = 'original' | 'heatmap' | 'fog';
export const MODES: ViewMode[] = ['original', 'heatmap', 'fog'];
/** Opacities (%) a result opens with. */
const DEFAULT_OPACITY = { heatmap: 60, fog: 85 };

/** What is shown over the image: the view, and the heatmap's and the fog's own opacities (%). */
export type ViewState = {
  mode: ViewMode;
  opacity: number;
  setMode: (mode: ViewMode) => void;
  setOpacity: (value: number) => void;
};

/** The view state of a viewer (or of a comparison, shared by its images). */
export function useViewState(): ViewState {
  const [mode, setMode] = useState<ViewMode>('heatmap');
  // The heatmap and the fog keep their own opacity: the fog needs more to show anything.
  const [opacities, setOpacities] = useState(DEFAULT_OPACITY);
  const opacity = mode === 'fog' ? opacities.fog : opacities.heatmap;
  const setOpacity = (value: number) =>
    setOpacities((current) => (mode === 'fog' ? { ...current, fog: value } : { ...current, heatmap: value }));
  return { mode, opacity, setMode, setOpacity };
}
