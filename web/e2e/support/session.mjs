// What the browser suites share: a fresh page (own context, French browser and UI, light theme) that
// collects page errors and console errors, and a new account registered through the login
// screen. Refused requests are expected 4xx answers ("Failed to load resource") and are not
// counted as errors.

/**
 * @param {import('playwright-core').Browser} browser
 * @param {string} baseURL
 */
export async function newPage(browser, baseURL) {
  const context = await browser.newContext({
    baseURL,
    colorScheme: 'light',
    // The app follows an English browser on a first visit; these suites read the French UI.
    locale: 'fr-FR',
    viewport: { width: 1280, height: 1000 },
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(m.text());
  });
  return { context, page, errors };
}

/** The password of every account these suites create. */
export const PASSWORD = 'secret-123';

/**
 * Registers a new account (unique email with `prefix`), waits for the creatives page and returns
 * the email.
 */
export async function register(page, prefix) {
  const email = `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;
  await page.goto('/');
  await page.getByTestId('auth-mode-toggle').click();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Mot de passe').fill(PASSWORD);
  await page.getByTestId('auth-submit').click();
  await page.getByRole('heading', { level: 1, name: 'Mes créations' }).waitFor();
  return email;
}

/** Fills the login form (French UI) and submits it. */
export async function signIn(page, email, password = PASSWORD) {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Mot de passe', { exact: true }).fill(password);
  await page.getByTestId('auth-submit').click();
}

/** Signs out through the navigation's Logout (auth-js's default scope: every session of the user). */
export async function signOut(page) {
  await page.getByTestId('logout').click();
}
