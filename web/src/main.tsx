// i18n first: it sets <html lang> and must be ready before anything renders.
import '@/lib/i18n';
import './index.css';

import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

import { App } from '@/app';
import { applyTheme, resolveTheme, useThemeStore } from '@/features/theme/theme-store';

// public/theme-init.js already did this before first paint; repeat it in case
// that script was blocked, before React renders.
applyTheme(resolveTheme(useThemeStore.getState().theme));

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');

createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
