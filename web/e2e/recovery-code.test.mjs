// The code of the recovery mail, in Chromium against the real `regard` binary (issue 31): after
// "Mot de passe oublié", a screen takes the 6-digit code the mail carries next to its link
// (auth-js `verifyOtp`, type recovery), refuses a wrong code in words that speak of a code,
// sends the mail again once the server would, and leads to "Choisissez un nouveau mot de passe";
// the new password is then confirmed once, by a toast in the app. The screen names the code by
// the mail's own words, in French (light) and English (dark), and lays out without overflow or
// clipping at 390, 1024 and 1440 px.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServerAndBrowser, stopServerAndBrowser } from './support/browser.mjs';
import { nextMail, outboxMark } from './support/outbox.mjs';
import { PASSWORD, register, signIn, signOut } from './support/session.mjs';

const WIDTHS = [390, 1024, 1440];
const NEW_PASSWORD = 'nouveau-secret-42';

/** The mail's line with the code: its words (e.g. "Ou saisissez ce code dans Regard") and the code. */
function codeLine(text) {
  const match = /^(.+?)\s?:\s*(\d{6})\s*$/m.exec(text);
  if (!match) throw new Error(`no code line in the mail:\n${text}`);
  return { label: match[1].trim(), code: match[2] };
}

/**
 * What is wrong with the layout of the auth card's form at this width: the page scrolling
 * sideways, an element of the form outside the card or cut by it, controls overlapping.
 */
async function formProblems(page) {
  return page.evaluate(() => {
    const problems = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > doc.clientWidth) problems.push(`the page scrolls sideways (${doc.scrollWidth} > ${doc.clientWidth})`);
    const card = document.querySelector('.login__card').getBoundingClientRect();
    const form = document.querySelector('.auth-form');
    const parts = [...form.querySelectorAll('h1, p, label, input, button, [role="alert"], [role="status"]')];
    for (const el of parts) {
      const r = el.getBoundingClientRect();
      const name = `${el.tagName.toLowerCase()} "${(el.textContent || el.getAttribute('aria-label') || '').trim().slice(0, 30)}"`;
      if (r.width === 0 || r.height === 0) continue;
      if (r.left < card.left - 0.5 || r.right > card.right + 0.5) problems.push(`${name} leaves the card sideways`);
      if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible') problems.push(`${name} is clipped`);
    }
    const controls = [...form.querySelectorAll('input, button')].map((el) => [el, el.getBoundingClientRect()]);
    for (let i = 0; i < controls.length; i += 1) {
      for (let j = i + 1; j < controls.length; j += 1) {
        const [a, ra] = controls[i];
        const [b, rb] = controls[j];
        const overlap = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left) > 0.5 && Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top) > 0.5;
        if (overlap) problems.push(`"${a.textContent || a.name}" overlaps "${b.textContent || b.name}"`);
      }
    }
    return problems;
  });
}

/** Two boxes share some area. */
const intersects = (a, b) => Math.min(a.x + a.width, b.x + b.width) > Math.max(a.x, b.x) && Math.min(a.y + a.height, b.y + b.height) > Math.max(a.y, b.y);

describe('The recovery code in Chromium', () => {
  let server;
  let browser;
  before(async () => {
    // No wait between two mails on the server: the browser's clock is moved on, not the server's.
    ({ server, browser } = await startServerAndBrowser({ REGARD_MAIL_MAX_FREQUENCY: '0', REGARD_RATE_LIMIT_SIGN_IN: '0' }));
  });
  after(async () => {
    await stopServerAndBrowser({ server, browser });
  });

  /** A fresh profile: French light by default. */
  async function open(options = {}) {
    const context = await browser.newContext({ baseURL: server.url, colorScheme: 'light', locale: 'fr-FR', viewport: { width: 1440, height: 900 }, ...options });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(m.text());
    });
    return { context, page, errors };
  }

  it('takes the code of the mail, refuses a wrong one, sends the mail again, and confirms the new password once', async () => {
    const { context, page, errors } = await open();
    // The browser's clock can be moved on to the end of the wait before "Renvoyer l'email".
    await page.clock.install();
    const email = await register(page, 'code');
    await signOut(page);
    await page.getByRole('heading', { level: 1, name: 'Connexion' }).waitFor();

    await page.getByRole('button', { name: 'Mot de passe oublié ?' }).click();
    await page.getByLabel('Email').fill(email);
    let seen = await outboxMark(server.dataDir);
    await page.getByRole('button', { name: 'Envoyer le lien' }).click();
    await page.getByRole('heading', { level: 1, name: 'Saisir le code reçu' }).waitFor();
    const first = codeLine(await nextMail(server.dataDir, seen));

    // The screen names the code by the mail's words, and the address it was sent to.
    const field = page.getByLabel('Code à 6 chiffres');
    assert.match(await page.getByTestId('recovery-code-intro').textContent(), new RegExp(`Si un compte existe pour ${email.replace(/[.+]/g, '\\$&')}`));
    const hint = await page.locator(`#${await field.getAttribute('aria-describedby')}`).textContent();
    assert.ok(hint.includes(`« ${first.label} »`), `${hint} names "${first.label}"`);
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'recovery-code-input');

    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      assert.deepEqual(await formProblems(page), [], `code screen at ${width} px`);
    }

    // Five digits: the app's own message, not the browser's.
    await field.fill('12345');
    await page.getByRole('button', { name: 'Vérifier le code' }).click();
    assert.equal(await field.evaluate((input) => input.validationMessage), 'Saisissez les 6 chiffres du code reçu par email.');

    // A wrong code: said in words that speak of a code; the field empties for the next try.
    await field.fill(first.code === '000000' ? '000001' : '000000');
    await page.getByRole('button', { name: 'Vérifier le code' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.textContent(), /^Ce code ne fonctionne pas : il est erroné, a expiré/);
    assert.equal(await field.inputValue(), '');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'recovery-code-input', 'back in the field');
    await page.setViewportSize({ width: 390, height: 900 });
    assert.deepEqual(await formProblems(page), [], 'with the error at 390 px');

    // "Renvoyer l'email" waits a minute (the server's pace), then sends a new mail whose code replaces the first.
    const resend = page.getByTestId('recovery-code-resend');
    assert.match(await resend.textContent(), /^Renvoyer l'email dans \d+ s$/);
    assert.equal(await resend.isDisabled(), true);
    await page.clock.fastForward(61_000);
    await page.waitForFunction(() => !document.querySelector('[data-testid="recovery-code-resend"]').disabled);
    assert.equal(await resend.textContent(), "Renvoyer l'email");
    seen = await outboxMark(server.dataDir);
    await resend.click();
    await page.getByRole('status').filter({ hasText: 'un nouvel email vient de lui être envoyé' }).waitFor();
    const second = codeLine(await nextMail(server.dataDir, seen));
    if (second.code !== first.code) {
      await field.fill(first.code);
      await page.getByRole('button', { name: 'Vérifier le code' }).click();
      await alert.filter({ hasText: 'Ce code ne fonctionne pas' }).waitFor();
    }

    // The right code: the new password, then the app, with one confirmation.
    await field.fill(second.code);
    await page.getByRole('button', { name: 'Vérifier le code' }).click();
    await page.getByRole('heading', { level: 1, name: 'Choisissez un nouveau mot de passe' }).waitFor();
    await page.getByLabel('Nouveau mot de passe', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Confirmez le mot de passe').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Enregistrer le mot de passe' }).click();
    await page.getByRole('heading', { level: 1, name: 'Mes créations' }).waitFor();
    const toast = page.getByRole('status', { name: 'Notifications' }).getByTestId('toast');
    await toast.waitFor();
    assert.equal(await toast.count(), 1);
    assert.equal((await toast.locator('.toast__message').textContent()).trim(), 'Votre mot de passe a été changé.');
    // On a phone the toast sits above the assistant's button, not over it.
    const [toastBox, chatBox] = [await toast.boundingBox(), await page.getByTestId('chat-toggle').boundingBox()];
    assert.ok(!intersects(toastBox, chatBox), `toast ${JSON.stringify(toastBox)} clear of the assistant ${JSON.stringify(chatBox)}`);
    assert.ok(toastBox.x >= 0 && toastBox.x + toastBox.width <= 390, 'the toast fits the phone');

    // The new password signs in; the old one no longer does.
    await page.setViewportSize({ width: 1440, height: 900 });
    await signOut(page);
    await signIn(page, email, PASSWORD);
    await page.getByRole('alert').filter({ hasText: 'Email ou mot de passe incorrect' }).waitFor();
    await signIn(page, email, NEW_PASSWORD);
    await page.getByRole('heading', { level: 1, name: 'Mes créations' }).waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('speaks English in the dark: the code screen names the code as the English mail does, and the change is confirmed', async () => {
    const { context, page, errors } = await open({ locale: 'en-GB', colorScheme: 'dark', viewport: { width: 390, height: 844 } });
    // An English browser gets the English interface on a first visit.
    const email = `code-en-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;
    await page.goto('/');
    await page.getByTestId('auth-mode-toggle').click();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByTestId('auth-submit').click();
    await page.getByRole('heading', { level: 1, name: 'My Creatives' }).waitFor();
    await page.getByTestId('nav-menu-button').click();
    await page.getByTestId('logout').click();
    await page.getByRole('button', { name: 'Forgot password?' }).click();
    await page.getByLabel('Email').fill(email);
    const seen = await outboxMark(server.dataDir);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByRole('heading', { level: 1, name: 'Enter the code from the email' }).waitFor();
    const mail = codeLine(await nextMail(server.dataDir, seen));
    assert.equal(mail.label, 'Or enter this code in Regard');
    const field = page.getByLabel('6-digit code');
    const hint = await page.locator(`#${await field.getAttribute('aria-describedby')}`).textContent();
    assert.ok(hint.includes(`“${mail.label}”`), hint);
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      assert.deepEqual(await formProblems(page), [], `English code screen at ${width} px`);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
    await field.fill(mail.code);
    await page.getByRole('button', { name: 'Verify the code' }).click();
    await page.getByRole('heading', { level: 1, name: 'Choose a new password' }).waitFor();
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Confirm the password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Save the password' }).click();
    const toast = page.getByTestId('toast');
    await toast.waitFor();
    assert.equal((await toast.locator('.toast__message').textContent()).trim(), 'Your password has been changed.');
    assert.deepEqual(errors, []);
    await context.close();
  });
});
