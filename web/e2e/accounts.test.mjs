// Accounts in a real browser against the real binary: two-step verification with an
// authenticator app (codes computed here from the secret the page shows), the code screen after
// signing in (a wrong code, then the right one), and password recovery through the link of the
// mail the server writes to its development outbox, and a sign-in by the link of a mail.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServerAndBrowser, stopServerAndBrowser } from './support/browser.mjs';
import { nextMail, outboxMark, verifyLink } from './support/outbox.mjs';
import { newPage, PASSWORD, register, signIn, signOut } from './support/session.mjs';
import { nextStep, totpCode, totpStep } from './support/totp.mjs';

const HOME = { level: 1, name: 'Mes créations' };
const LOGIN = { level: 1, name: 'Connexion' };
const CODE_SCREEN = { level: 1, name: 'Vérification en deux étapes' };

describe('accounts in Chromium', () => {
  let server;
  let browser;
  before(async () => ({ server, browser } = await startServerAndBrowser()));
  after(() => stopServerAndBrowser({ server, browser }));

  it('shows the storage used against the quota on the account page', async () => {
    const { context, page, errors } = await newPage(browser, server.url);
    await register(page, 'storage');
    await page.getByTestId('user-menu').click();
    await page.getByTestId('account-link').click();
    const section = page.getByTestId('account-storage');
    await section.getByTestId('storage-used').waitFor();
    assert.match(await section.getByTestId('storage-used').textContent(), /^0\sMo utilisés sur 5\sGo \(0 image\)\.$/u);
    assert.equal(await section.getByRole('progressbar').getAttribute('value'), '0');
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('turns on two-step verification, then asks for the code after signing in', async () => {
    const { context, page, errors } = await newPage(browser, server.url);
    const email = await register(page, 'totp');

    await page.getByTestId('user-menu').click();
    await page.getByTestId('account-link').click();
    await page.getByRole('heading', { level: 1, name: 'Mon compte' }).waitFor();
    await page.getByTestId('add-totp').click();
    const dialog = page.getByRole('dialog', { name: "Ajouter une application d'authentification" });
    await dialog.getByLabel('Nom').fill('Téléphone de test');
    await dialog.getByTestId('totp-start').click();
    const secret = (await dialog.getByTestId('totp-secret').textContent()).trim();
    assert.match(secret, /^[A-Z2-7]{16,}=*$/);
    assert.ok(await dialog.getByRole('img', { name: /QR code/ }).evaluate((img) => img.complete && img.naturalWidth > 0), 'the QR code shows');
    const enrolledAt = totpStep();
    await dialog.getByLabel('Code à 6 chiffres').fill(totpCode(secret, enrolledAt));
    await dialog.getByTestId('totp-confirm').click();
    await page.getByTestId('mfa-notice').waitFor();
    assert.match(await page.getByTestId('factor-list').textContent(), /Téléphone de test/);

    // Recovery codes are offered at once, shown this one time.
    const codesDialog = page.getByRole('dialog', { name: 'Vos codes de secours' });
    await codesDialog.getByTestId('recovery-code-list').waitFor();
    const codes = (await codesDialog.getByRole('listitem').allTextContents()).map((code) => code.trim());
    assert.equal(codes.length, 10);
    assert.ok(codes.every((code) => /^[0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4}$/.test(code)), codes.join(' '));
    await codesDialog.getByTestId('recovery-done').click();
    assert.match(await page.getByTestId('recovery-summary').textContent(), /^10 codes restants sur 10/);

    await signOut(page);
    await page.getByRole('heading', LOGIN).waitFor();
    await signIn(page, email);
    await page.getByRole('heading', CODE_SCREEN).waitFor();
    assert.equal(await page.getByRole('navigation', { name: 'Navigation principale' }).count(), 0);

    // A wrong code (none of the codes the server accepts around now).
    const step = totpStep();
    const valid = new Set([step - 1, step, step + 1].map((s) => totpCode(secret, s)));
    const wrong = ['000000', '111111', '222222'].find((code) => !valid.has(code));
    await page.getByLabel('Code à 6 chiffres').fill(wrong);
    await page.getByTestId('mfa-submit').click();
    await page.getByTestId('mfa-error').waitFor();
    assert.equal((await page.getByTestId('mfa-error').textContent()).trim(), 'Code incorrect. Vérifiez-le et réessayez.');

    // The phone is lost: a recovery code, typed in capitals with spaces, lets the user in.
    await page.getByTestId('mfa-use-recovery').click();
    await page.getByLabel('Code de secours').fill(codes[0].toUpperCase().replaceAll('-', ' '));
    await page.getByTestId('mfa-submit').click();
    // Back on the page the user signed out from.
    await page.getByRole('heading', { level: 1, name: 'Mon compte' }).waitFor();
    await page.getByRole('navigation', { name: 'Navigation principale' }).waitFor();
    await page.getByTestId('recovery-summary').waitFor();
    assert.match(await page.getByTestId('recovery-summary').textContent(), /^9 codes restants sur 10/);
    const current = page.getByTestId('session-current');
    await current.waitFor();
    assert.equal((await current.textContent()).trim(), 'Cet appareil');

    // Changing the password asks for the current one.
    const passwordSection = page.getByTestId('account-password');
    await passwordSection.getByLabel('Mot de passe actuel').fill('not-the-password');
    await passwordSection.getByLabel('Nouveau mot de passe').fill('another-secret-1');
    await passwordSection.getByLabel('Confirmez le mot de passe').fill('another-secret-1');
    await passwordSection.getByTestId('change-password').click();
    await passwordSection.getByText('Le mot de passe actuel est incorrect.').waitFor();
    await passwordSection.getByLabel('Mot de passe actuel').fill(PASSWORD);
    await passwordSection.getByTestId('change-password').click();
    await passwordSection.getByText('Votre mot de passe a été changé.').waitFor();

    // The used recovery code is refused as used; the app's code, from a step after the one used to
    // enrol (a code is good once), lets the user in.
    await signOut(page);
    await page.getByRole('heading', LOGIN).waitFor();
    await signIn(page, email, 'another-secret-1');
    await page.getByRole('heading', CODE_SCREEN).waitFor();
    await page.getByTestId('mfa-use-recovery').click();
    await page.getByLabel('Code de secours').fill(codes[0]);
    await page.getByTestId('mfa-submit').click();
    await page.getByTestId('mfa-error').waitFor();
    assert.match(await page.getByTestId('mfa-error').textContent(), /^Ce code a déjà été utilisé\./);
    await page.getByTestId('mfa-use-recovery').click();
    const now = await nextStep(enrolledAt);
    await page.getByLabel('Code à 6 chiffres').fill(totpCode(secret, now));
    await page.getByTestId('mfa-submit').click();
    await page.getByRole('heading', { level: 1, name: 'Mon compte' }).waitFor();

    assert.deepEqual(errors, []);
    await context.close();
  });

  it('lists the devices signed in and signs another one out', async () => {
    const first = await newPage(browser, server.url);
    const email = await register(first.page, 'sessions');
    const second = await newPage(browser, server.url);
    await second.page.goto('/');
    await signIn(second.page, email);
    await second.page.getByRole('heading', HOME).waitFor();

    await first.page.goto('/account');
    const rows = first.page.getByTestId('session-row');
    await rows.nth(1).waitFor();
    assert.equal(await rows.count(), 2);
    assert.equal(await first.page.getByTestId('session-current').count(), 1);
    // Both are this Chromium: "Chrome <version> sur Linux".
    assert.match(await rows.first().locator('.account-list__name').textContent(), /^Chrome \d+ sur Linux$/);
    const other = rows.filter({ has: first.page.getByTestId('end-session') });
    await other.getByTestId('end-session').click();
    await first.page.getByRole('alertdialog', { name: 'Déconnecter cet appareil ?' }).getByTestId('confirm-delete').click();
    await first.page.getByText("L'appareil a été déconnecté.").waitFor();
    await first.page.waitForFunction(() => document.querySelectorAll('[data-testid="session-row"]').length === 1);

    // The other browser is signed out at its next request.
    await second.page.goto('/locations');
    await second.page.getByRole('heading', LOGIN).waitFor();

    assert.deepEqual(first.errors, []);
    await first.context.close();
    await second.context.close();
  });

  it('recovers a password through the link in the mail, and refuses the link a second time', async () => {
    const { context, page, errors } = await newPage(browser, server.url);
    const email = await register(page, 'recover');
    await signOut(page);
    await page.getByRole('heading', LOGIN).waitFor();

    await page.getByTestId('forgot-password').click();
    await page.getByRole('heading', { level: 1, name: 'Mot de passe oublié' }).waitFor();
    const seen = await outboxMark(server.dataDir);
    await page.getByLabel('Email').fill(email);
    await page.getByTestId('auth-submit').click();
    // The screen for the mail's code comes next; this test follows the mail's link instead.
    await page.getByRole('heading', { level: 1, name: 'Saisir le code reçu' }).waitFor();
    assert.match(await page.getByTestId('recovery-code-intro').textContent(), /^Si un compte existe pour /);

    const link = verifyLink(await nextMail(server.dataDir, seen));
    assert.ok(link.startsWith(`${server.url}/auth/v1/verify?`), link);
    await page.goto(link);
    await page.getByRole('heading', { level: 1, name: 'Choisissez un nouveau mot de passe' }).waitFor();
    await page.getByLabel('Nouveau mot de passe', { exact: true }).fill('nouveau-secret-1');
    await page.getByLabel('Confirmez le mot de passe').fill('nouveau-secret-1');
    await page.getByTestId('new-password-submit').click();
    await page.getByRole('heading', HOME).waitFor();
    assert.equal(new URL(page.url()).pathname, '/creatives');
    // Confirmed once, in the app.
    const toast = page.getByRole('status', { name: 'Notifications' }).getByTestId('toast');
    await toast.waitFor();
    assert.equal(await toast.count(), 1);
    assert.equal((await toast.locator('.toast__message').textContent()).trim(), 'Votre mot de passe a été changé.');

    // The new password works, the old one no longer does.
    await signOut(page);
    await page.getByRole('heading', LOGIN).waitFor();
    await signIn(page, email, PASSWORD);
    await page.getByTestId('auth-error').waitFor();
    await signIn(page, email, 'nouveau-secret-1');
    await page.getByRole('heading', HOME).waitFor();

    // The same link again: used up. The page says so and offers a new one.
    await signOut(page);
    await page.getByRole('heading', LOGIN).waitFor();
    await page.goto(link);
    await page.getByRole('heading', { level: 1, name: 'Mot de passe oublié' }).waitFor();
    assert.match(await page.getByTestId('auth-error').textContent(), /Ce lien n'est plus valable/);

    assert.deepEqual(errors, []);
    await context.close();
  });

  it('signs in with the link of a mail, without the password', async () => {
    const { context, page, errors } = await newPage(browser, server.url);
    const email = await register(page, 'magic');
    await signOut(page);
    await page.getByRole('heading', LOGIN).waitFor();

    await page.getByTestId('magic-link').click();
    await page.getByRole('heading', { level: 1, name: 'Connexion par lien' }).waitFor();
    assert.equal(await page.getByLabel('Mot de passe').count(), 0, 'no password field');
    const seen = await outboxMark(server.dataDir);
    await page.getByLabel('Email').fill(email);
    await page.getByTestId('auth-submit').click();
    await page.getByTestId('auth-notice').waitFor();
    assert.match(await page.getByTestId('auth-notice').textContent(), /un lien de connexion/);

    const mail = await nextMail(server.dataDir, seen);
    assert.match(mail, /Voici le lien pour vous connecter à Regard/);
    const link = verifyLink(mail);
    assert.match(link, /type=magiclink/);
    await page.goto(link);
    await page.getByRole('heading', HOME).waitFor();
    await page.getByRole('navigation', { name: 'Navigation principale' }).waitFor();

    // An address without an account reads the same notice, and gets no mail.
    await signOut(page);
    await page.getByRole('heading', LOGIN).waitFor();
    await page.getByTestId('magic-link').click();
    const before = await outboxMark(server.dataDir);
    await page.getByLabel('Email').fill(`nobody-${Date.now()}@example.com`);
    await page.getByTestId('auth-submit').click();
    await page.getByTestId('auth-notice').waitFor();
    assert.match(await page.getByTestId('auth-notice').textContent(), /Si un compte existe pour cette adresse/);
    assert.deepEqual(await outboxMark(server.dataDir), before);

    assert.deepEqual(errors, []);
    await context.close();
  });
});
