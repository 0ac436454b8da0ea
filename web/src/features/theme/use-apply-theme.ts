import { useEffect } from 'react';

import { applyTheme, DARK_QUERY, resolveTheme, useThemeStore } from './theme-store';

/**
 * Keeps <html> in step with the chosen theme and, while the choice is
 * "system", with the operating system's preference as it changes.
 */
export function useApplyTheme() {
  const theme = useThemeStore((state) => state.theme);

  useEffect(() => {
    applyTheme(resolveTheme(theme));
    if (theme !== 'system' || typeof window.matchMedia !== 'function') return;

    const query = window.matchMedia(DARK_QUERY);
    const onChange = (event: MediaQueryListEvent) => applyTheme(event.matches ? 'dark' : 'light');
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, [theme]);
}
