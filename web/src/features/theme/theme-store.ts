//! Theme preference (light, dark or system), persisted by zustand under
//! `theme-storage` as `{"state":{"theme":"dark"},"version":0}`.
//! public/theme-init.js reads the same key before first paint; keep them in step.
import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';

import { THEME_STORAGE_KEY } from '@/config/constants';

export const THEMES = ['light', 'dark', 'system'] as const;
export type Theme = (typeof THEMES)[number];
export type ResolvedTheme = Exclude<Theme, 'system'>;

export function isTheme(value: unknown): value is Theme {
  return typeof value === 'string' && (THEMES as readonly string[]).includes(value);
}

type ThemeState = {
  theme: Theme;
  setTheme: (theme: Theme) => void;
};

export const useThemeStore = create<ThemeState>()(
  persist(
    (set) => ({
      theme: 'system',
      setTheme: (theme) => set({ theme }),
    }),
    {
      name: THEME_STORAGE_KEY,
      version: 0,
      storage: createJSONStorage(() => window.localStorage),
      partialize: ({ theme }) => ({ theme }),
      // A hand-edited or corrupted value falls back to the default.
      merge: (persisted, current) => {
        const theme = (persisted as Partial<ThemeState> | undefined)?.theme;
        return { ...current, theme: isTheme(theme) ? theme : current.theme };
      },
    },
  ),
);

export const DARK_QUERY = '(prefers-color-scheme: dark)';

/** The operating system's preference; light when matchMedia is unavailable. */
export function systemTheme(): ResolvedTheme {
  return typeof window.matchMedia === 'function' && window.matchMedia(DARK_QUERY).matches ? 'dark' : 'light';
}

export function resolveTheme(theme: Theme): ResolvedTheme {
  return theme === 'system' ? systemTheme() : theme;
}

/** Puts the theme on <html>: `data-theme`, a `dark` class and `color-scheme`. */
export function applyTheme(resolved: ResolvedTheme) {
  const root = document.documentElement;
  root.dataset.theme = resolved;
  root.classList.toggle('dark', resolved === 'dark');
  root.style.colorScheme = resolved;
}
