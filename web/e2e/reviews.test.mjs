// Reviews and activity in a real browser against the real binary. An owner makes a shared
// workspace and a heatmap in it (through the API), and invites a viewer, who joins from the mailed
// link. The viewer approves the heatmap and comments, mentioning the owner through the @ helper
// (the owner gets a mail); the owner then sees the comment, its mention and "Validé par …", and the
// workspace's activity lists the comment and the approval, filtered from the address.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServerAndBrowser, stopServerAndBrowser } from './support/browser.mjs';
import { mailText, nextMail, outboxMark } from './support/outbox.mjs';
import { newPage, register } from './support/session.mjs';

/** The invitation link of a mail's text (`<site>/invitations/<token>`). */
function invitationLink(text) {
  const match = /https?:\/\/[^\s"'<>]+\/invitations\/[A-Za-z0-9_-]+/.exec(text);
  if (!match) throw new Error(`no invitation link in the mail:\n${text}`);
  return match[0];
}

/** `fetch('/api/v1' + path)` in the page as its signed-in user, in workspace `workspace` (if any); the JSON answer. */
async function call(page, method, path, { body, workspace, form } = {}) {
  return page.evaluate(
    async ({ method, path, body, workspace, form }) => {
      const token = JSON.parse(localStorage.getItem('regard-auth-token')).access_token;
      const headers = { Authorization: `Bearer ${token}` };
      if (workspace) headers['X-Workspace-Id'] = workspace;
      let payload;
      if (form) {
        // A poster drawn in the page: a grey ground and a red disc.
        const canvas = document.createElement('canvas');
        canvas.width = 640;
        canvas.height = 360;
        const ctx = canvas.getContext('2d');
        ctx.fillStyle = '#9ca3af';
        ctx.fillRect(0, 0, 640, 360);
        ctx.fillStyle = '#ef4444';
        ctx.beginPath();
        ctx.arc(200, 160, 90, 0, Math.PI * 2);
        ctx.fill();
        const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
        payload = new FormData();
        payload.append('file', blob, form);
      } else if (body !== undefined) {
        headers['Content-Type'] = 'application/json';
        payload = JSON.stringify(body);
      }
      const answer = await fetch(`/api/v1${path}`, { method, headers, body: payload });
      if (!answer.ok) throw new Error(`${method} ${path}: ${answer.status} ${await answer.text()}`);
      return answer.status === 204 ? null : answer.json();
    },
    { method, path, body, workspace, form },
  );
}

describe('reviews and activity in Chromium', () => {
  let server;
  let browser;
  before(async () => ({ server, browser } = await startServerAndBrowser()));
  after(() => stopServerAndBrowser({ server, browser }));

  it('a viewer approves a heatmap and comments mentioning the owner; the owner sees both, and the activity lists them', async () => {
    const owner = await newPage(browser, server.url);
    const ownerEmail = await register(owner.page, 'rv-owner');
    const viewer = await newPage(browser, server.url);
    const viewerEmail = await register(viewer.page, 'rv-viewer');

    // The owner's shared workspace, a heatmap in it, and the viewer's invitation.
    const workspace = await call(owner.page, 'POST', '/workspaces', { body: { name: 'Agence Nord' } });
    const media = await call(owner.page, 'POST', '/media', { workspace: workspace.id, form: 'affiche-soldes.png' });
    const heatmap = await call(owner.page, 'POST', '/heatmaps', {
      workspace: workspace.id,
      body: { name: 'Campagne soldes', media_ids: [media.id] },
    });
    let mark = await outboxMark(server.dataDir);
    await call(owner.page, 'POST', `/workspaces/${workspace.id}/invitations`, { body: { email: viewerEmail, role: 'viewer' } });
    const link = invitationLink(await nextMail(server.dataDir, mark));

    // The viewer joins, and opens the heatmap's results (its link names the workspace).
    await viewer.page.goto(link);
    await viewer.page.getByRole('button', { name: "Rejoindre l'espace" }).click();
    await viewer.page.getByText('Bienvenue dans « Agence Nord » ! Votre rôle : Lecteur.').waitFor();
    await viewer.page.goto(`/heatmap/results/${heatmap.id}?ws=${workspace.id}`);
    await viewer.page.getByRole('heading', { level: 1, name: 'Campagne soldes' }).waitFor();
    const panel = viewer.page.getByTestId('review-panel');
    await panel.getByRole('heading', { name: 'Commentaires et validation' }).waitFor();
    await panel.getByText("Aucun commentaire pour l'instant.").waitFor();

    // Approved, by the viewer.
    await panel.getByRole('button', { name: 'Validé' }).click();
    await panel.getByTestId('approval-by').filter({ hasText: `Validé par ${viewerEmail} (vous) le` }).waitFor();
    assert.equal(await panel.getByRole('button', { name: 'Validé' }).getAttribute('aria-pressed'), 'true');

    // A comment on two lines, the owner picked from the @ helper, sent with Ctrl+Enter.
    mark = await outboxMark(server.dataDir);
    const input = panel.getByTestId('comment-input');
    await input.click();
    await input.pressSequentially('Bon pour nous.');
    await input.press('Shift+Enter');
    await input.pressSequentially('Merci @rv-own');
    const option = panel.getByTestId('mention-option').filter({ hasText: ownerEmail });
    await option.waitFor();
    await input.press('Enter');
    assert.equal(await input.inputValue(), `Bon pour nous.\nMerci @${ownerEmail} `);
    await input.pressSequentially('!');
    await input.press('Control+Enter');
    const posted = panel.getByTestId('comment');
    await posted.waitFor();
    assert.equal(await input.inputValue(), '');
    assert.equal((await posted.getByTestId('mention').textContent()).trim(), `@${ownerEmail}`);
    // The mention is mailed to the owner.
    const mail = mailText(await nextMail(server.dataDir, mark));
    assert.match(mail, new RegExp(ownerEmail.replace(/[.]/g, '\\.')));

    // The owner, on the same results: the comment with its mention, the "approved" status.
    await owner.page.goto(`/heatmap/results/${heatmap.id}?ws=${workspace.id}`);
    const ownerPanel = owner.page.getByTestId('review-panel');
    const comment = ownerPanel.getByTestId('comment');
    await comment.waitFor();
    assert.equal((await comment.getByTestId('comment-author').textContent()).trim(), viewerEmail);
    assert.equal((await comment.getByTestId('comment-body').textContent()).trim(), `Bon pour nous.\nMerci @${ownerEmail} !`);
    assert.equal((await comment.getByTestId('mention').textContent()).trim(), `@${ownerEmail}`);
    assert.match(await ownerPanel.getByTestId('approval-by').textContent(), new RegExp(`^Validé par ${viewerEmail.replace(/[.]/g, '\\.')} le `));
    assert.equal(await ownerPanel.getByTestId('approval-approved').getAttribute('aria-pressed'), 'true');
    // An owner may delete any comment; the viewer's own delete button was theirs alone to have.
    assert.equal(await comment.getByTestId('delete-comment').count(), 1);

    // The activity, from the workspace menu: the comment and the approval, newest first.
    await owner.page.getByTestId('workspace-switcher').click();
    await owner.page.getByTestId('workspace-activity-link').click();
    await owner.page.getByRole('heading', { level: 1, name: 'Activité' }).waitFor();
    const sentences = owner.page.getByTestId('activity-sentence');
    await sentences.first().waitFor();
    // French puts no-break spaces inside « »; read here as spaces.
    const lines = (await sentences.allTextContents()).map((text) => text.replace(/\u00a0/g, ' ').trim());
    const commented = lines.indexOf(`${viewerEmail} a commenté la heatmap « Campagne soldes »`);
    const reviewed = lines.indexOf(`${viewerEmail} a changé la validation de la heatmap « Campagne soldes »`);
    assert.ok(commented >= 0 && reviewed > commented, lines.join('\n'));
    assert.ok(lines.includes(`${viewerEmail} a rejoint l'espace`), lines.join('\n'));
    assert.ok(lines.includes(`${ownerEmail} (vous) a créé la heatmap « Campagne soldes »`), lines.join('\n'));
    await owner.page.getByTestId('activity-day').first().getByRole('heading', { name: "Aujourd'hui" }).waitFor();

    // Filtered to comments, in the address; the line links to the heatmap.
    await owner.page.getByLabel('Action').selectOption('commented');
    await owner.page.waitForURL(/[?&]action=commented/);
    await owner.page.waitForFunction(() => document.querySelectorAll('[data-testid="activity-item"]').length === 1);
    await owner.page.getByTestId('activity-link').click();
    await owner.page.waitForURL(new RegExp(`/heatmap/results/${heatmap.id}`));
    await owner.page.getByTestId('review-panel').getByTestId('comment').waitFor();

    for (const { errors } of [owner, viewer]) assert.deepEqual(errors, []);
    await Promise.all([owner.context.close(), viewer.context.close()]);
  });
});
