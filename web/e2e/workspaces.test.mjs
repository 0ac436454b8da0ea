// Workspaces in a real browser against the real binary: an owner creates a shared workspace from
// the header, invites a second address as a viewer and adds a creative to it; the invited person
// opens the mailed link signed out, signs up, joins, and lands on the workspace's creatives read
// only; the owner's members page then lists both. The mail is read from the server's outbox.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServerAndBrowser, stopServerAndBrowser } from './support/browser.mjs';
import { nextMail, outboxMark } from './support/outbox.mjs';
import { newPage, PASSWORD, register } from './support/session.mjs';

/** The invitation link of a mail's text (`<site>/invitations/<token>`). */
function invitationLink(text) {
  const match = /https?:\/\/[^\s"'<>]+\/invitations\/[A-Za-z0-9_-]+/.exec(text);
  if (!match) throw new Error(`no invitation link in the mail:\n${text}`);
  return match[0];
}

/** A PNG drawn in the page (canvas), as bytes. */
async function png(page, width, height, color) {
  const base64 = await page.evaluate(
    ({ width, height, color }) => {
      const canvas = document.createElement('canvas');
      canvas.width = width;
      canvas.height = height;
      const ctx = canvas.getContext('2d');
      ctx.fillStyle = color;
      ctx.fillRect(0, 0, width, height);
      return canvas.toDataURL('image/png').split(',')[1];
    },
    { width, height, color },
  );
  return Buffer.from(base64, 'base64');
}

describe('workspaces in Chromium', () => {
  let server;
  let browser;
  before(async () => ({ server, browser } = await startServerAndBrowser()));
  after(() => stopServerAndBrowser({ server, browser }));

  it('an owner invites a viewer by mail; the viewer joins and reads the creatives; the members page lists both', async () => {
    const owner = await newPage(browser, server.url);
    const ownerEmail = await register(owner.page, 'ws-owner');
    const viewerEmail = `ws-viewer-${Date.now()}-${Math.random().toString(36).slice(2)}@example.com`;

    // A new workspace from the header's menu: its members page opens, in it.
    const switcher = owner.page.getByTestId('workspace-switcher');
    assert.equal((await switcher.textContent()).trim(), 'Mon espace');
    await switcher.click();
    await owner.page.getByTestId('create-workspace').click();
    const dialog = owner.page.getByRole('dialog', { name: 'Créer un espace' });
    await dialog.getByLabel("Nom de l'espace").fill('Agence Nord');
    await dialog.getByRole('button', { name: "Créer l'espace" }).click();
    await owner.page.getByRole('heading', { level: 1, name: 'Espace de travail' }).waitFor();
    await owner.page.waitForURL(/\/workspace$/);
    assert.match(await switcher.textContent(), /Agence Nord\s*Propriétaire/);

    // The invitation, as a viewer.
    const mark = await outboxMark(server.dataDir);
    const form = owner.page.getByTestId('invite-form');
    await form.getByLabel('Adresse email').fill(viewerEmail);
    await form.getByLabel('Rôle').selectOption('viewer');
    await form.getByRole('button', { name: "Envoyer l'invitation" }).click();
    await owner.page.getByText(`Invitation envoyée à ${viewerEmail}.`).waitFor();
    const pending = owner.page.getByTestId('invitation-row');
    await pending.waitFor();
    assert.match(await pending.textContent(), new RegExp(`${viewerEmail.replace(/[.]/g, '\\.')}.*Expire le`));
    const link = invitationLink(await nextMail(server.dataDir, mark));
    assert.ok(link.startsWith(`${server.url}/invitations/`), link);

    // A creative in the shared workspace.
    await owner.page.getByRole('link', { name: 'Créations' }).click();
    await owner.page.getByText("Vous n'avez pas encore de créations.").waitFor();
    await owner.page.getByTestId('new-creative').click();
    await owner.page
      .getByTestId('drop-zone-input')
      .setInputFiles({ name: 'affiche-agence.png', mimeType: 'image/png', buffer: await png(owner.page, 640, 360, '#f97316') });
    const grid = owner.page.getByTestId('creatives-grid');
    await grid.getByRole('link', { name: 'affiche-agence' }).waitFor();

    // The invited person opens the link signed out: the login screen says to sign in first.
    const viewer = await newPage(browser, server.url);
    await viewer.page.goto(link);
    await viewer.page.getByTestId('invitation-sign-in').waitFor();
    await viewer.page.getByTestId('auth-mode-toggle').click();
    await viewer.page.getByLabel('Email').fill(viewerEmail);
    await viewer.page.getByLabel('Mot de passe').fill(PASSWORD);
    await viewer.page.getByTestId('auth-submit').click();

    // Signed up, back on the invitation: join.
    await viewer.page.getByRole('heading', { level: 1, name: 'Invitation à un espace de travail' }).waitFor();
    assert.equal(new URL(viewer.page.url()).pathname, new URL(link).pathname);
    await viewer.page.getByRole('button', { name: "Rejoindre l'espace" }).click();
    await viewer.page.getByRole('heading', { level: 1, name: 'Mes créations' }).waitFor();
    await viewer.page.getByText('Bienvenue dans « Agence Nord » ! Votre rôle : Lecteur.').waitFor();
    assert.match(await viewer.page.getByTestId('workspace-switcher').textContent(), /Agence Nord\s*Lecteur/);

    // Read only: the workspace's creative, no upload; its page without rename or delete.
    const notice = viewer.page.getByTestId('read-only-notice');
    await notice.waitFor();
    assert.match(await notice.textContent(), /^Lecture seule/);
    await viewer.page.getByTestId('creatives-grid').getByRole('link', { name: 'affiche-agence' }).waitFor();
    assert.equal(await viewer.page.getByTestId('new-creative').count(), 0);
    await viewer.page.getByTestId('creatives-grid').getByRole('link', { name: 'affiche-agence' }).click();
    await viewer.page.getByTestId('creative-facts').waitFor();
    assert.match(new URL(viewer.page.url()).search, /^\?ws=/, 'the item page carries its workspace');
    for (const control of ['rename-creative', 'delete-creative', 'simulate-creative']) {
      assert.equal(await viewer.page.getByTestId(control).count(), 0, control);
    }

    // The link used is spent.
    const again = await newPage(browser, server.url);
    await register(again.page, 'ws-other');
    await again.page.goto(link);
    await again.page.getByRole('button', { name: "Rejoindre l'espace" }).click();
    await again.page.getByTestId('invitation-used').waitFor();

    // The owner's members page lists both, with their roles; nothing is pending any more.
    await owner.page.getByTestId('workspace-switcher').click();
    await owner.page.getByTestId('workspace-settings-link').click();
    await owner.page.getByRole('heading', { level: 1, name: 'Espace de travail' }).waitFor();
    const rows = owner.page.getByTestId('member-row');
    await owner.page.locator(`[data-testid="member-row"][data-email="${viewerEmail}"]`).waitFor();
    assert.deepEqual(await rows.evaluateAll((items) => items.map((item) => item.dataset.email)), [ownerEmail, viewerEmail]);
    assert.equal(await rows.nth(1).getByTestId('member-role').inputValue(), 'viewer');
    assert.equal(await rows.nth(0).getByTestId('member-role').inputValue(), 'owner');
    await owner.page.getByText('Aucune invitation en attente.').waitFor();

    for (const { errors } of [owner, viewer]) assert.deepEqual(errors, []);
    await Promise.all([owner.context.close(), viewer.context.close(), again.context.close()]);
  });
});
