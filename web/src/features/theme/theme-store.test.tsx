import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { ThemeSwitch } from './components/theme-switch';
import { resolveTheme, useThemeStore } from './theme-store';
import { useApplyTheme } from './use-apply-theme';

/** A controllable `prefers-color-scheme: dark` media query. */
function mockMatchMedia(initiallyDark: boolean) {
  const listeners = new Set<(event: MediaQueryListEvent) => void>();
  const query = {
    matches: initiallyDark,
    media: '(prefers-color-scheme: dark)',
    onchange: null,
    addEventListener: (_type: string, listener: (event: MediaQueryListEvent) => void) => listeners.add(listener),
    removeEventListener: (_type: string, listener: (event: MediaQueryListEvent) => void) => listeners.delete(listener),
    addListener: vi.fn(),
    removeListener: vi.fn(),
    dispatchEvent: vi.fn(),
  };
  vi.stubGlobal('matchMedia', vi.fn(() => query));
  return {
    listeners,
    setDark(dark: boolean) {
      query.matches = dark;
      for (const listener of listeners) listener({ matches: dark } as MediaQueryListEvent);
    },
  };
}

function ThemeHarness() {
  useApplyTheme();
  return <ThemeSwitch />;
}

const root = document.documentElement;

beforeEach(() => {
  useThemeStore.setState({ theme: 'system' });
  window.localStorage.clear();
  delete root.dataset.theme;
  root.classList.remove('dark');
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('theme store', () => {
  it('defaults to system', () => {
    expect(useThemeStore.getState().theme).toBe('system');
  });

  it('persists the choice under theme-storage in zustand format', () => {
    act(() => useThemeStore.getState().setTheme('dark'));
    expect(JSON.parse(window.localStorage.getItem('theme-storage') ?? 'null')).toEqual({
      state: { theme: 'dark' },
      version: 0,
    });
  });

  it('restores a persisted choice and ignores an invalid one', async () => {
    window.localStorage.setItem('theme-storage', JSON.stringify({ state: { theme: 'light' }, version: 0 }));
    await useThemeStore.persist.rehydrate();
    expect(useThemeStore.getState().theme).toBe('light');

    window.localStorage.setItem('theme-storage', JSON.stringify({ state: { theme: 'purple' }, version: 0 }));
    useThemeStore.setState({ theme: 'system' });
    await useThemeStore.persist.rehydrate();
    expect(useThemeStore.getState().theme).toBe('system');
  });

  it('resolves system to the operating system preference', () => {
    mockMatchMedia(true);
    expect(resolveTheme('system')).toBe('dark');
    mockMatchMedia(false);
    expect(resolveTheme('system')).toBe('light');
    expect(resolveTheme('dark')).toBe('dark');
  });
});

describe('applying the theme', () => {
  it('follows prefers-color-scheme changes live while on system', () => {
    const media = mockMatchMedia(false);
    render(<ThemeHarness />);
    expect(root.dataset.theme).toBe('light');

    act(() => media.setDark(true));
    expect(root.dataset.theme).toBe('dark');
    expect(root).toHaveClass('dark');

    act(() => media.setDark(false));
    expect(root.dataset.theme).toBe('light');
    expect(root).not.toHaveClass('dark');
  });

  it('ignores the operating system once a theme is chosen, and persists it', async () => {
    const media = mockMatchMedia(false);
    const user = userEvent.setup();
    render(<ThemeHarness />);

    await user.selectOptions(screen.getByLabelText('Thème'), 'dark');
    expect(root.dataset.theme).toBe('dark');
    expect(media.listeners.size).toBe(0);
    act(() => media.setDark(false));
    expect(root.dataset.theme).toBe('dark');
    expect(JSON.parse(window.localStorage.getItem('theme-storage') ?? '{}')).toMatchObject({ state: { theme: 'dark' } });

    await user.selectOptions(screen.getByLabelText('Thème'), 'system');
    expect(root.dataset.theme).toBe('light');
    act(() => media.setDark(true));
    expect(root.dataset.theme).toBe('dark');
  });

  it('offers light, dark and system', () => {
    mockMatchMedia(false);
    render(<ThemeHarness />);
    const options = screen.getAllByRole('option').map((option) => option.textContent);
    expect(options).toEqual(['Clair', 'Sombre', 'Système']);
  });
});
