//! Questions the widget offers on each page (translation keys), so a user sees what
//! the assistant can do where they are.
export type SuggestionKey =
  | 'chat.suggestions.creativesBest'
  | 'chat.suggestions.creativesHow'
  | 'chat.suggestions.locationsCount'
  | 'chat.suggestions.locationsCorners'
  | 'chat.suggestions.simulationBest'
  | 'chat.suggestions.simulationNight'
  | 'chat.suggestions.heatmapStatus'
  | 'chat.suggestions.heatmapScore'
  | 'chat.suggestions.heatmapLatest'
  | 'chat.suggestions.helpWhat'
  | 'chat.suggestions.privacy';

/** The suggestions for a page (by its path). */
export function suggestionKeys(pathname: string): SuggestionKey[] {
  const first = pathname.split('/')[1] ?? '';
  switch (first) {
    case 'creatives':
      return ['chat.suggestions.creativesBest', 'chat.suggestions.creativesHow'];
    case 'locations':
      return ['chat.suggestions.locationsCount', 'chat.suggestions.locationsCorners'];
    case 'simulation':
      return ['chat.suggestions.simulationBest', 'chat.suggestions.simulationNight'];
    case 'heatmap':
      return pathname.startsWith('/heatmap/results/')
        ? ['chat.suggestions.heatmapStatus', 'chat.suggestions.heatmapScore']
        : ['chat.suggestions.heatmapLatest', 'chat.suggestions.heatmapScore'];
    case 'help':
      return ['chat.suggestions.helpWhat', 'chat.suggestions.privacy'];
    default:
      return ['chat.suggestions.helpWhat', 'chat.suggestions.creativesBest'];
  }
}
