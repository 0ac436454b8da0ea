import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach, beforeEach } from 'vitest';

import { i18n } from '@/lib/i18n';
import { emptyLists, mockApi } from '@/testing/api-mock';

beforeEach(async () => {
  window.localStorage.clear();
  mockApi(emptyLists);
  await i18n.changeLanguage('fr');
});

afterEach(() => {
  cleanup();
});
