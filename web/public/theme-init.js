// Applies the saved theme to <html> before the first paint, so a dark-theme
// user never sees a white flash. An external file (not inline) so that the
// server's Content-Security-Policy `script-src 'self'` allows it.
// Mirrors src/features/theme/theme-store.ts (key `theme-storage`, zustand format)
// and src/lib/i18n.ts (key `regard-language`).
(function () {
  var root = document.documentElement;
  var theme = 'system';
  try {
    var stored = JSON.parse(window.localStorage.getItem('theme-storage') || 'null');
    var value = stored && stored.state && stored.state.theme;
    if (value === 'light' || value === 'dark' || value === 'system') theme = value;
    var language = window.localStorage.getItem('regard-language');
    if (language === 'fr' || language === 'en') root.lang = language;
  } catch (e) {
    // Unreadable storage: keep the defaults.
  }
  if (theme === 'system') {
    theme = window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  }
  root.dataset.theme = theme;
  root.style.colorScheme = theme;
  if (theme === 'dark') root.classList.add('dark');
})();
