import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach, beforeEach } from 'vitest';

import { i18n } from '@/lib/i18n';
import { resetWorkspace } from '@/lib/workspace';
import { emptyLists, mockApi } from '@/testing/api-mock';

// `findBy…` and `waitFor` give up after 1 s by default: too short when the test command runs
// the suites side by side on two busy cores. A wait that succeeds returns as soon as it does,
// so a longer limit only delays a failure.
configure({ asyncUtilTimeout: 5000 });

// jsdom does not scroll (its scrollTo reports "not implemented"); the router's scroll restoration
// calls it on every navigation. A test that cares spies on it.
window.scrollTo = () => {};

beforeEach(async () => {
  window.localStorage.clear();
  window.sessionStorage.clear();
  // Every test starts in the personal workspace (the tab's choice lives in memory too).
  resetWorkspace();
  mockApi(emptyLists);
  await i18n.changeLanguage('fr');
});

afterEach(async () => {
  cleanup();
  // Pages that held the live-events connection are gone; don't let it linger into the next test.
  // Imported here, not at the top, so that a test file's vi.mock('@/lib/auth') applies to it.
  const { closeLiveEvents } = await import('@/lib/events');
  closeLiveEvents();
  const { clearSessionEnded } = await import('@/lib/session');
  clearSessionEnded();
  const { useToastStore } = await import('@/lib/toast');
  useToastStore.getState().clear();
});
