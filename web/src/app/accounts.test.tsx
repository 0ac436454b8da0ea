import { act, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';

import { i18n } from '@/lib/i18n';
import { calls, emptyLists, mockApi } from '@/testing/api-mock';
import { authClient, authError, emit, fakeFactor, fakeSession, resetAuthMock } from '@/testing/auth-mock';
import { renderApp } from '@/testing/render';

vi.mock('@/lib/auth', () => import('@/testing/auth-mock'));

const totp = fakeFactor();
const phone = fakeFactor({ id: 'f-phone', factor_type: 'phone', friendly_name: 'Portable', phone: '+33612345678' } as never);

function listFactors(...factors: object[]) {
  const verified = factors.filter((f) => (f as { status: string }).status === 'verified');
  authClient.mfa.listFactors.mockResolvedValue({
    data: { all: factors, totp: verified.filter((f) => (f as { factor_type: string }).factor_type === 'totp'), phone: [], webauthn: [] },
    error: null,
  });
}

function levels(currentLevel: 'aal1' | 'aal2', nextLevel: 'aal1' | 'aal2') {
  authClient.mfa.getAuthenticatorAssuranceLevel.mockResolvedValue({
    data: { currentLevel, nextLevel, currentAuthenticationMethods: [] },
    error: null,
  });
}

beforeEach(() => {
  resetAuthMock(fakeSession());
});

describe('the second step after signing in', () => {
  beforeEach(() => {
    levels('aal1', 'aal2');
    listFactors(totp);
    authClient.mfa.challenge.mockResolvedValue({ data: { id: 'c1', type: 'totp', expires_at: 0 }, error: null });
  });

  it('asks for the code before any page, and lets the user in once verified', async () => {
    const fetchMock = mockApi(emptyLists);
    const { user } = renderApp('/locations');
    expect(await screen.findByRole('heading', { level: 1, name: 'Vérification en deux étapes' })).toBeInTheDocument();
    expect(screen.queryByRole('navigation')).not.toBeInTheDocument();
    await waitFor(() => expect(authClient.mfa.challenge).toHaveBeenCalledWith({ factorId: 'f-totp' }));
    expect(calls(fetchMock).filter((call) => call.includes('/locations'))).toEqual([]);

    authClient.mfa.verify.mockImplementation(() => {
      levels('aal2', 'aal2');
      return Promise.resolve({ data: {}, error: null });
    });
    await user.type(screen.getByLabelText('Code à 6 chiffres'), '123456');
    await user.click(screen.getByRole('button', { name: 'Vérifier' }));
    expect(authClient.mfa.verify).toHaveBeenCalledWith({ factorId: 'f-totp', challengeId: 'c1', code: '123456' });
    act(() => emit('MFA_CHALLENGE_VERIFIED', { ...fakeSession(), access_token: 'aal2-token' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Mes emplacements' })).toBeInTheDocument();
  });

  it.each([
    ['mfa_verification_failed', 'Code incorrect. Vérifiez-le et réessayez.'],
    ['over_request_rate_limit', 'Trop de tentatives. Patientez quelques instants puis réessayez.'],
  ])('shows %s translated', async (code, message) => {
    authClient.mfa.verify.mockResolvedValue({ data: null, error: authError(code, 'x', code === 'over_request_rate_limit' ? 429 : 422) });
    const { user } = renderApp('/creatives');
    await user.type(await screen.findByLabelText('Code à 6 chiffres'), '000000');
    await user.click(screen.getByRole('button', { name: 'Vérifier' }));
    expect(await screen.findByTestId('mfa-error')).toHaveTextContent(message);
    expect(screen.getByLabelText('Code à 6 chiffres')).toHaveValue('');
  });

  it('starts a new challenge by itself when the challenge expired, and says so', async () => {
    authClient.mfa.verify.mockResolvedValueOnce({ data: null, error: authError('mfa_challenge_expired', 'x', 422) });
    const { user } = renderApp('/creatives');
    await user.type(await screen.findByLabelText('Code à 6 chiffres'), '123456');
    authClient.mfa.challenge.mockResolvedValue({ data: { id: 'c2', type: 'totp', expires_at: 0 }, error: null });
    await user.click(screen.getByRole('button', { name: 'Vérifier' }));
    expect(await screen.findByTestId('mfa-notice')).toHaveTextContent('La vérification a expiré');
    expect(authClient.mfa.challenge).toHaveBeenCalledTimes(2);
    authClient.mfa.verify.mockResolvedValue({ data: {}, error: null });
    await user.type(screen.getByLabelText('Code à 6 chiffres'), '654321');
    await user.click(screen.getByRole('button', { name: 'Vérifier' }));
    expect(authClient.mfa.verify).toHaveBeenLastCalledWith({ factorId: 'f-totp', challengeId: 'c2', code: '654321' });
  });

  it('lets the user choose among factors; an SMS factor can be sent again (rate limited)', async () => {
    listFactors(totp, phone);
    const { user } = renderApp('/creatives');
    await user.click(await screen.findByRole('radio', { name: /Portable/ }));
    await waitFor(() => expect(authClient.mfa.challenge).toHaveBeenCalledWith({ factorId: 'f-phone' }));
    expect(await screen.findByTestId('mfa-notice')).toHaveTextContent('Un code vient de vous être envoyé par SMS.');
    expect(screen.getByText('Saisissez le code à 6 chiffres reçu par SMS.')).toBeInTheDocument();

    authClient.mfa.challenge.mockResolvedValue({ data: null, error: authError('over_sms_send_rate_limit', 'x', 429) });
    await user.click(screen.getByRole('button', { name: 'Renvoyer le code' }));
    expect(await screen.findByTestId('mfa-error')).toHaveTextContent('Un SMS vient déjà d\'être envoyé');
  });

  it("takes a recovery code instead of the app's code, and says when a code was already used", async () => {
    const { user } = renderApp('/creatives');
    await user.click(await screen.findByRole('button', { name: 'Utiliser un code de secours' }));
    expect(screen.getByText("Saisissez l'un de vos codes de secours. Chaque code ne sert qu'une fois.")).toBeInTheDocument();
    const input = screen.getByLabelText('Code de secours');
    await user.type(input, 'ab12-cd34');
    await user.click(screen.getByRole('button', { name: 'Vérifier' }));
    expect(await screen.findByTestId('mfa-error')).toHaveTextContent('Un code de secours compte 12 caractères');
    expect(authClient.mfa.verify).not.toHaveBeenCalled();

    authClient.mfa.verify.mockResolvedValueOnce({ data: null, error: authError('mfa_code_already_used', 'x', 422) });
    await user.clear(input);
    await user.type(input, 'AB12 CD34 EF56');
    await user.click(screen.getByRole('button', { name: 'Vérifier' }));
    expect(authClient.mfa.verify).toHaveBeenCalledWith({ factorId: 'f-totp', challengeId: 'c1', code: 'AB12 CD34 EF56' });
    expect(await screen.findByTestId('mfa-error')).toHaveTextContent('Ce code a déjà été utilisé.');

    await user.click(screen.getByRole('button', { name: 'Utiliser le code à 6 chiffres' }));
    expect(screen.getByLabelText('Code à 6 chiffres')).toBeInTheDocument();
  });

  it('can be cancelled: signs out this device only', async () => {
    const { user } = renderApp('/creatives');
    await user.click(await screen.findByRole('button', { name: 'Annuler et se déconnecter' }));
    expect(authClient.signOut).toHaveBeenCalledWith({ scope: 'local' });
    expect(await screen.findByRole('heading', { level: 1, name: 'Connexion' })).toBeInTheDocument();
  });
});

describe('password recovery', () => {
  it('asks for a new password after the recovery link, then opens the app', async () => {
    resetAuthMock(null);
    const { user, router } = renderApp('/reset-password');
    await screen.findByRole('heading', { level: 1, name: 'Mot de passe oublié' });
    act(() => emit('PASSWORD_RECOVERY', fakeSession()));
    expect(await screen.findByRole('heading', { level: 1, name: 'Choisissez un nouveau mot de passe' })).toBeInTheDocument();

    await user.type(screen.getByLabelText('Nouveau mot de passe'), 'nouveau-secret');
    await user.type(screen.getByLabelText('Confirmez le mot de passe'), 'autre-chose');
    await user.click(screen.getByRole('button', { name: 'Enregistrer le mot de passe' }));
    expect(authClient.updateUser).not.toHaveBeenCalled();
    expect(screen.getByLabelText<HTMLInputElement>('Confirmez le mot de passe').validationMessage).toBe(
      'Les deux mots de passe ne sont pas identiques.',
    );

    authClient.updateUser.mockResolvedValueOnce({ data: { user: null }, error: authError('same_password', 'x', 422) });
    await user.clear(screen.getByLabelText('Confirmez le mot de passe'));
    await user.type(screen.getByLabelText('Confirmez le mot de passe'), 'nouveau-secret');
    await user.click(screen.getByRole('button', { name: 'Enregistrer le mot de passe' }));
    expect(await screen.findByRole('alert')).toHaveTextContent("Le nouveau mot de passe doit être différent de l'actuel.");

    await user.click(screen.getByRole('button', { name: 'Enregistrer le mot de passe' }));
    expect(authClient.updateUser).toHaveBeenLastCalledWith({ password: 'nouveau-secret' });
    expect(await screen.findByRole('heading', { level: 1, name: 'Mes créations' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/creatives');
  });

  it('confirms the new password once, in the app, with a toast', async () => {
    resetAuthMock(null);
    const { user } = renderApp('/reset-password');
    await screen.findByRole('heading', { level: 1, name: 'Mot de passe oublié' });
    act(() => emit('PASSWORD_RECOVERY', fakeSession()));
    await user.type(await screen.findByLabelText('Nouveau mot de passe'), 'nouveau-secret');
    await user.type(screen.getByLabelText('Confirmez le mot de passe'), 'nouveau-secret');
    await user.click(screen.getByRole('button', { name: 'Enregistrer le mot de passe' }));
    await screen.findByRole('heading', { level: 1, name: 'Mes créations' });
    const region = screen.getByRole('status', { name: 'Notifications' });
    expect(await within(region).findByTestId('toast')).toHaveTextContent('Votre mot de passe a été changé.');
    expect(within(region).getAllByTestId('toast')).toHaveLength(1);
  });

  it('takes the code of the recovery mail instead of its link, then asks for the new password', async () => {
    resetAuthMock(null);
    const { user, router } = renderApp('/creatives');
    await user.click(await screen.findByRole('button', { name: 'Mot de passe oublié ?' }));
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.click(screen.getByRole('button', { name: 'Envoyer le lien' }));
    await screen.findByRole('heading', { level: 1, name: 'Saisir le code reçu' });

    // As auth-js does: the session is saved, then PASSWORD_RECOVERY announced.
    authClient.verifyOtp.mockImplementation(() => {
      const session = fakeSession();
      authClient.getSession.mockResolvedValue({ data: { session }, error: null });
      emit('PASSWORD_RECOVERY', session);
      return Promise.resolve({ data: { user: session.user, session }, error: null });
    });
    await user.type(screen.getByLabelText('Code à 6 chiffres'), '482915');
    await user.click(screen.getByRole('button', { name: 'Vérifier le code' }));
    expect(authClient.verifyOtp).toHaveBeenCalledWith({ email: 'ada@example.com', token: '482915', type: 'recovery' });
    expect(await screen.findByRole('heading', { level: 1, name: 'Choisissez un nouveau mot de passe' })).toBeInTheDocument();

    await user.type(screen.getByLabelText('Nouveau mot de passe'), 'nouveau-secret');
    await user.type(screen.getByLabelText('Confirmez le mot de passe'), 'nouveau-secret');
    await user.click(screen.getByRole('button', { name: 'Enregistrer le mot de passe' }));
    expect(authClient.updateUser).toHaveBeenLastCalledWith({ password: 'nouveau-secret' });
    // The app opens at its home page (the page behind the login screen may show for a moment first).
    await waitFor(() => expect(router.state.location.pathname).toBe('/creatives'));
    await waitFor(() => expect(screen.getByRole('heading', { level: 1, name: 'Mes créations' })).toBeInTheDocument());
    expect(await screen.findByTestId('toast')).toHaveTextContent('Votre mot de passe a été changé.');
  });

  it('cancelling the new password after a code signs out, back to the login form', async () => {
    resetAuthMock(null);
    const { user } = renderApp('/reset-password');
    await screen.findByRole('heading', { level: 1, name: 'Mot de passe oublié' });
    act(() => emit('PASSWORD_RECOVERY', fakeSession()));
    await user.click(await screen.findByRole('button', { name: 'Annuler' }));
    expect(authClient.signOut).toHaveBeenCalledWith({ scope: 'local' });
    expect(await screen.findByRole('heading', { level: 1, name: 'Mot de passe oublié' })).toBeInTheDocument();
    expect(authClient.updateUser).not.toHaveBeenCalled();
  });

  it('says when the link can no longer be used, and offers a new one', async () => {
    resetAuthMock(null);
    authClient.initialize.mockResolvedValue({
      error: Object.assign(new Error('Email link is invalid or has expired'), {
        name: 'AuthImplicitGrantRedirectError',
        __isAuthError: true,
        details: { error: 'access_denied', code: 'otp_expired' },
      }),
    });
    const { router } = renderApp('/reset-password?error=access_denied&error_code=otp_expired&error_description=x');
    expect(await screen.findByRole('alert')).toHaveTextContent("Ce lien n'est plus valable");
    expect(screen.getByRole('button', { name: 'Envoyer le lien' })).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.search).toBe(''));
  });

  it('says the same of a code that auth-js could not use (another browser)', async () => {
    resetAuthMock(null);
    renderApp('/reset-password?code=abc');
    expect(await screen.findByRole('alert')).toHaveTextContent("Ce lien n'est plus valable");
  });

  it('says so on the login screen too, for a sign-in link opened in another browser', async () => {
    resetAuthMock(null);
    const { router } = renderApp('/?code=abc');
    expect(await screen.findByRole('alert')).toHaveTextContent("Ce lien n'est plus valable");
    expect(screen.getByRole('heading', { level: 1, name: 'Connexion' })).toBeInTheDocument();
    await waitFor(() => expect(router.state.location.search).toBe(''));
  });

  it('shows a provider error from the URL on the login screen', async () => {
    resetAuthMock(null);
    authClient.initialize.mockResolvedValue({
      error: Object.assign(new Error('Unverified email with github.'), {
        name: 'AuthImplicitGrantRedirectError',
        __isAuthError: true,
        details: { error: 'access_denied', code: 'provider_email_needs_verification' },
      }),
    });
    renderApp('/creatives?error=access_denied&error_code=provider_email_needs_verification');
    expect(await screen.findByRole('alert')).toHaveTextContent("Confirmez d'abord votre adresse email auprès du fournisseur");
    expect(screen.getByRole('heading', { level: 1, name: 'Connexion' })).toBeInTheDocument();
  });
});

describe('the user menu and the account page', () => {
  const session = fakeSession('ada@example.com', {
    identities: [
      {
        id: 'i1',
        identity_id: 'i1',
        user_id: 'u',
        provider: 'email',
        identity_data: { email: 'ada@example.com' },
        created_at: '',
        last_sign_in_at: '',
        updated_at: '',
      },
      {
        id: 'i2',
        identity_id: 'i2',
        user_id: 'u',
        provider: 'google',
        identity_data: { email: 'ada@gmail.com' },
        created_at: '',
        last_sign_in_at: '',
        updated_at: '',
      },
    ],
  });

  beforeEach(() => {
    resetAuthMock(session);
  });

  it('shows the e-mail in the menu, with the account page, and signs out from the navigation', async () => {
    const { user, router } = renderApp('/creatives');
    const nav = await screen.findByRole('navigation', { name: 'Navigation principale' });
    const menu = within(nav).getByRole('button', { name: 'Compte : ada@example.com' });
    expect(menu).toHaveAttribute('aria-expanded', 'false');
    await user.click(menu);
    expect(menu).toHaveAttribute('aria-expanded', 'true');
    await user.click(within(nav).getByRole('link', { name: 'Mon compte' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Mon compte' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/account');
    expect(menu).toHaveAttribute('aria-expanded', 'false');

    await user.click(within(nav).getByRole('button', { name: 'Déconnexion' }));
    expect(authClient.signOut).toHaveBeenCalledWith({ scope: 'global' });
  });

  it('lists the connected providers', async () => {
    renderApp('/account');
    const section = await screen.findByTestId('account-providers');
    expect(section).toHaveTextContent('Email et mot de passe');
    expect(section).toHaveTextContent('Google');
    expect(section).toHaveTextContent('ada@gmail.com');
  });

  it('shows the storage used against the quota, and without a quota', async () => {
    mockApi(({ path }) => (path === '/usage' ? { body: { used_bytes: 1_234_000_000, limit_bytes: 5_000_000_000, media_count: 42 } } : undefined));
    renderApp('/account');
    const section = await screen.findByTestId('account-storage');
    expect(await within(section).findByTestId('storage-used')).toHaveTextContent(/1,2\s?Go utilisés sur 5\s?Go \(42 images\)/);
    expect(within(section).getByRole('progressbar', { name: 'Stockage utilisé : 25 %' })).toHaveValue(25);
  });

  it('says when the server sets no storage limit', async () => {
    mockApi(({ path }) => (path === '/usage' ? { body: { used_bytes: 800_000, limit_bytes: null, media_count: 1 } } : undefined));
    await i18n.changeLanguage('en');
    renderApp('/account');
    const section = await screen.findByTestId('account-storage');
    expect(await within(section).findByTestId('storage-used')).toHaveTextContent('0.8 MB used (1 image).');
    expect(section).toHaveTextContent('This server sets no storage limit.');
    expect(within(section).queryByRole('progressbar')).not.toBeInTheDocument();
    await i18n.changeLanguage('fr');
  });

  it('changes the e-mail: asks to check the new inbox', async () => {
    const { user } = renderApp('/account');
    const section = await screen.findByTestId('account-email');
    expect(section).toHaveTextContent('ada@example.com');
    await user.click(within(section).getByRole('button', { name: "Changer d'adresse" }));
    await user.type(within(section).getByLabelText('Nouvelle adresse email'), 'ada@new.example');
    await user.click(within(section).getByRole('button', { name: 'Envoyer le lien de confirmation' }));
    expect(authClient.updateUser).toHaveBeenCalledWith(
      { email: 'ada@new.example' },
      { emailRedirectTo: `${window.location.origin}/account` },
    );
    expect(await within(section).findByTestId('email-pending')).toHaveTextContent('Consultez la boîte de réception de ada@new.example');
  });

  it.each([
    ['same_password', 422, "Le nouveau mot de passe doit être différent de l'actuel."],
    ['weak_password', 422, 'Ce mot de passe est trop faible.'],
    ['reauthentication_needed', 401, 'reconnectez-vous avant de changer votre mot de passe'],
    ['insufficient_aal', 403, 'Cette action demande une vérification en deux étapes récente.'],
    ['current_password_invalid', 400, 'Le mot de passe actuel est incorrect.'],
  ])('changes the password, showing %s translated', async (code, status, message) => {
    authClient.updateUser.mockResolvedValueOnce({ data: { user: null }, error: authError(code, 'x', status) });
    const { user } = renderApp('/account');
    const section = await screen.findByTestId('account-password');
    await user.type(within(section).getByLabelText('Mot de passe actuel'), 'secret-123');
    await user.type(within(section).getByLabelText('Nouveau mot de passe'), 'secret-456');
    await user.type(within(section).getByLabelText('Confirmez le mot de passe'), 'secret-456');
    await user.click(within(section).getByRole('button', { name: 'Changer le mot de passe' }));
    expect(await within(section).findByRole('alert')).toHaveTextContent(message);
    await user.click(within(section).getByRole('button', { name: 'Changer le mot de passe' }));
    expect(await within(section).findByRole('status')).toHaveTextContent('Votre mot de passe a été changé.');
    expect(authClient.updateUser).toHaveBeenLastCalledWith({ password: 'secret-456', current_password: 'secret-123' });
    // The form empties, the current password with it.
    expect(within(section).getByLabelText('Mot de passe actuel')).toHaveValue('');
  });

  it('asks no current password of an account made through a provider', async () => {
    resetAuthMock(fakeSession('ada@example.com', { identities: [{ ...session.user.identities![1] }] }));
    authClient.updateUser.mockResolvedValue({ data: { user: null }, error: null });
    const { user } = renderApp('/account');
    const section = await screen.findByTestId('account-password');
    expect(within(section).queryByLabelText('Mot de passe actuel')).not.toBeInTheDocument();
    await user.type(within(section).getByLabelText('Nouveau mot de passe'), 'secret-456');
    await user.type(within(section).getByLabelText('Confirmez le mot de passe'), 'secret-456');
    await user.click(within(section).getByRole('button', { name: 'Changer le mot de passe' }));
    await waitFor(() => expect(authClient.updateUser).toHaveBeenCalledWith({ password: 'secret-456' }));
  });

  it('enrols an authenticator app: QR code, secret, name, confirmation code', async () => {
    authClient.mfa.enroll.mockResolvedValue({
      data: {
        id: 'f-new',
        type: 'totp',
        friendly_name: 'Mon téléphone',
        totp: { qr_code: 'data:image/svg+xml;utf-8,<svg fill="#000"/>', secret: 'JBSWY3DPEHPK3PXP', uri: 'otpauth://totp/x' },
      },
      error: null,
    });
    const { user } = renderApp('/account');
    const section = await screen.findByTestId('account-mfa');
    expect(section).toHaveTextContent('Désactivée.');
    await user.click(within(section).getByRole('button', { name: "Ajouter une application d'authentification" }));
    const dialog = screen.getByRole('dialog', { name: "Ajouter une application d'authentification" });
    const name = within(dialog).getByLabelText('Nom');
    await user.clear(name);
    await user.type(name, 'Mon téléphone');
    await user.click(within(dialog).getByRole('button', { name: 'Continuer' }));
    expect(authClient.mfa.enroll).toHaveBeenCalledWith({ factorType: 'totp', friendlyName: 'Mon téléphone', issuer: 'Regard' });

    const qr = await within(dialog).findByRole('img', { name: "QR code à scanner avec votre application d'authentification" });
    expect(qr.getAttribute('src')).toBe(`data:image/svg+xml;charset=utf-8,${encodeURIComponent('<svg fill="#000"/>')}`);
    expect(within(dialog).getByTestId('totp-secret')).toHaveTextContent('JBSWY3DPEHPK3PXP');

    authClient.mfa.challengeAndVerify.mockResolvedValueOnce({ data: null, error: authError('mfa_verification_failed', 'x', 422) });
    await user.type(within(dialog).getByLabelText('Code à 6 chiffres'), '111111');
    await user.click(within(dialog).getByRole('button', { name: 'Activer' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Code incorrect.');

    authClient.mfa.challengeAndVerify.mockResolvedValue({ data: {}, error: null });
    listFactors(fakeFactor({ id: 'f-new', friendly_name: 'Mon téléphone' }));
    await user.type(within(dialog).getByLabelText('Code à 6 chiffres'), '222222');
    await user.click(within(dialog).getByRole('button', { name: 'Activer' }));
    expect(authClient.mfa.challengeAndVerify).toHaveBeenLastCalledWith({ factorId: 'f-new', code: '222222' });
    expect(await within(section).findByTestId('mfa-notice')).toHaveTextContent('Application ajoutée');
    expect(await within(section).findByText('Mon téléphone')).toBeInTheDocument();
    expect(section).toHaveTextContent('Activée');
  });

  it('abandoning an enrolment removes the unverified factor', async () => {
    authClient.mfa.enroll.mockResolvedValue({
      data: { id: 'f-new', type: 'totp', totp: { qr_code: 'x', secret: 'S', uri: 'u' } },
      error: null,
    });
    authClient.mfa.unenroll.mockResolvedValue({ data: { id: 'f-new' }, error: null });
    const { user } = renderApp('/account');
    await user.click(await screen.findByRole('button', { name: "Ajouter une application d'authentification" }));
    await user.click(screen.getByRole('button', { name: 'Continuer' }));
    await screen.findByTestId('totp-secret');
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Annuler' }));
    expect(authClient.mfa.unenroll).toHaveBeenCalledWith({ factorId: 'f-new' });
  });

  it('says when enrolling needs a recent second step (insufficient_aal)', async () => {
    authClient.mfa.enroll.mockResolvedValue({ data: null, error: authError('insufficient_aal', 'x', 403) });
    const { user } = renderApp('/account');
    await user.click(await screen.findByRole('button', { name: "Ajouter une application d'authentification" }));
    await user.click(screen.getByRole('button', { name: 'Continuer' }));
    expect(await screen.findByTestId('enrol-error')).toHaveTextContent('vérification en deux étapes récente');
  });

  it('enrols a phone: E.164 number, then the SMS code', async () => {
    authClient.mfa.enroll.mockResolvedValue({ data: { id: 'f-phone', type: 'phone', phone: '33612345678' }, error: null });
    authClient.mfa.challenge.mockResolvedValue({ data: { id: 'c-sms', type: 'phone', expires_at: 0 }, error: null });
    authClient.mfa.verify.mockResolvedValue({ data: {}, error: null });
    const { user } = renderApp('/account');
    await user.click(await screen.findByRole('button', { name: 'Ajouter un numéro de téléphone' }));
    const dialog = screen.getByRole('dialog', { name: 'Ajouter un numéro de téléphone' });
    await user.type(within(dialog).getByLabelText('Numéro de téléphone'), '06 12 34 56 78');
    await user.click(within(dialog).getByRole('button', { name: 'Envoyer le code' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('format international');
    expect(authClient.mfa.enroll).not.toHaveBeenCalled();

    await user.clear(within(dialog).getByLabelText('Numéro de téléphone'));
    await user.type(within(dialog).getByLabelText('Numéro de téléphone'), '+33 6 12 34 56 78');
    await user.click(within(dialog).getByRole('button', { name: 'Envoyer le code' }));
    expect(authClient.mfa.enroll).toHaveBeenCalledWith({ factorType: 'phone', friendlyName: 'Téléphone', phone: '+33612345678' });
    expect(authClient.mfa.challenge).toHaveBeenCalledWith({ factorId: 'f-phone' });
    await user.type(await within(dialog).findByLabelText('Code à 6 chiffres'), '123456');
    await user.click(within(dialog).getByRole('button', { name: 'Activer' }));
    expect(authClient.mfa.verify).toHaveBeenCalledWith({ factorId: 'f-phone', challengeId: 'c-sms', code: '123456' });
    expect(await screen.findByTestId('mfa-notice')).toHaveTextContent('Numéro ajouté');
  });

  it('lists factors with name, kind, status and date, and removes one after confirmation', async () => {
    listFactors(totp, fakeFactor({ id: 'f-old', friendly_name: 'Ancien', status: 'unverified' }));
    const { user } = renderApp('/account');
    const list = await screen.findByTestId('factor-list');
    const rows = within(list).getAllByRole('listitem');
    expect(rows[0]).toHaveTextContent('Téléphone perso');
    expect(rows[0]).toHaveTextContent("Application d'authentification · ajoutée le 14 mars 2026");
    expect(rows[0]).toHaveTextContent('Active');
    expect(rows[1]).toHaveTextContent('Non confirmée');

    authClient.mfa.unenroll.mockResolvedValueOnce({ data: null, error: authError('insufficient_aal', 'x', 422) });
    await user.click(within(rows[0]).getByRole('button', { name: 'Supprimer Téléphone perso' }));
    const confirm = screen.getByRole('alertdialog', { name: 'Supprimer cette méthode ?' });
    expect(confirm).toHaveTextContent('la vérification en deux étapes sera désactivée');
    await user.click(within(confirm).getByRole('button', { name: 'Supprimer' }));
    expect(await within(confirm).findByRole('alert')).toHaveTextContent('vérification en deux étapes récente');

    authClient.mfa.unenroll.mockResolvedValue({ data: { id: 'f-totp' }, error: null });
    await user.click(within(confirm).getByRole('button', { name: 'Supprimer' }));
    expect(authClient.mfa.unenroll).toHaveBeenLastCalledWith({ factorId: 'f-totp' });
    expect(await screen.findByTestId('mfa-notice')).toHaveTextContent('La méthode a été supprimée.');
  });

  const sessionRow = (id: string, overrides: Record<string, unknown> = {}) => ({
    id,
    user_agent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
    ip: '203.0.113.7',
    created_at: '2026-11-20T09:00:00.000Z',
    last_used_at: '2026-11-26T14:05:00.000Z',
    aal: 'aal1',
    current: false,
    ...overrides,
  });

  it('makes recovery codes once two-step verification is on, shows them once, asks before a new set', async () => {
    listFactors(totp);
    let summary: Record<string, unknown> = { remaining: 0, total: 0, created_at: null };
    const codes = Array.from({ length: 10 }, (_, i) => `ab1${i}-cd34-ef56`);
    const fetchMock = mockApi(({ method, path }) => {
      if (path !== '/account/recovery-codes') return undefined;
      if (method === 'GET') return { body: summary };
      summary = { remaining: 10, total: 10, created_at: '2026-11-26T10:00:00.000Z' };
      return { status: 201, body: { codes, created_at: '2026-11-26T10:00:00.000Z' } };
    });
    const { user } = renderApp('/account');
    const section = await screen.findByTestId('account-mfa');
    expect(await within(section).findByTestId('recovery-summary')).toHaveTextContent("Vous n'avez pas encore de codes de secours.");
    await user.click(within(section).getByRole('button', { name: 'Générer des codes de secours' }));
    const dialog = screen.getByRole('dialog', { name: 'Vos codes de secours' });
    const list = await within(dialog).findByTestId('recovery-code-list');
    expect(within(list).getAllByRole('listitem').map((item) => item.textContent)).toEqual(codes);
    await user.click(within(dialog).getByRole('button', { name: "J'ai mis ces codes à l'abri" }));
    expect(screen.queryByRole('dialog', { name: 'Vos codes de secours' })).not.toBeInTheDocument();
    await waitFor(() =>
      expect(within(section).getByTestId('recovery-summary')).toHaveTextContent('10 codes restants sur 10 (créés le 26 nov. 2026).'),
    );

    await user.click(within(section).getByRole('button', { name: 'Générer de nouveaux codes' }));
    const confirm = screen.getByRole('alertdialog', { name: 'Générer de nouveaux codes de secours ?' });
    expect(confirm).toHaveTextContent('Vos codes actuels cesseront de fonctionner.');
    await user.click(within(confirm).getByRole('button', { name: 'Annuler' }));
    expect(calls(fetchMock).filter((call) => call === 'POST /account/recovery-codes')).toHaveLength(1);
  });

  it('saves the agency branding: name, colour and logo, each optional', async () => {
    let saved: Record<string, unknown> = { agency_name: null, accent_color: null, logo: null };
    const fetchMock = mockApi(({ method, path, body }) => {
      if (path !== '/account/branding') return undefined;
      if (method === 'PUT') {
        const change = body as Record<string, unknown>;
        saved = { agency_name: change.agency_name, accent_color: change.accent_color, logo: null };
      }
      return { body: saved };
    });
    const { user } = renderApp('/account');
    const section = await screen.findByTestId('account-branding');
    await user.type(await within(section).findByLabelText("Nom de l'agence"), '  Agence Lumière ');
    expect(within(section).getByText('Couleur de Regard')).toBeInTheDocument();
    await user.click(within(section).getByRole('button', { name: 'Enregistrer la marque' }));
    expect(await within(section).findByRole('status')).toHaveTextContent('Votre marque a été enregistrée');
    const put = fetchMock.mock.calls.map(([input]) => input as Request).find((request) => request.method === 'PUT');
    expect(await put?.json()).toEqual({ agency_name: 'Agence Lumière', accent_color: null, logo_media_id: null });
    expect(calls(fetchMock)).toContain('PUT /account/branding');
  });

  it('warns when few recovery codes are left', async () => {
    listFactors(totp);
    mockApi(({ path }) =>
      path === '/account/recovery-codes' ? { body: { remaining: 1, total: 10, created_at: '2026-11-26T10:00:00.000Z' } } : undefined,
    );
    renderApp('/account');
    const section = await screen.findByTestId('account-mfa');
    expect(await within(section).findByTestId('recovery-summary')).toHaveTextContent('1 code restant sur 10');
    expect(within(section).getByTestId('recovery-low')).toHaveTextContent('Il vous reste peu de codes de secours');
  });

  it('lists the devices signed in, and signs one out after confirmation', async () => {
    let items = [
      sessionRow('s-me', {
        current: true,
        user_agent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
      }),
      sessionRow('s-other'),
      sessionRow('s-bare', { user_agent: null, ip: null }),
    ];
    const fetchMock = mockApi(({ method, path }) => {
      if (method === 'GET' && path === '/account/sessions') return { body: { items } };
      if (method === 'DELETE' && path === '/account/sessions/s-other') {
        items = items.filter((item) => item.id !== 's-other');
        return { status: 204 };
      }
      return undefined;
    });
    const { user } = renderApp('/account');
    const section = await screen.findByTestId('account-sessions');
    const rows = await within(section).findAllByTestId('session-row');
    expect(rows.map((row) => row.querySelector('.account-list__name')?.textContent)).toEqual([
      'Chrome 131 sur macOS',
      'Firefox 133 sur Windows',
      'Appareil inconnu',
    ]);
    expect(within(rows[0]).getByTestId('session-current')).toHaveTextContent('Cet appareil');
    expect(within(rows[0]).queryByRole('button')).not.toBeInTheDocument();
    expect(rows[1]).toHaveTextContent('Dernière activité : 26 nov. 2026');
    expect(rows[1]).toHaveTextContent('adresse IP 203.0.113.7');

    await user.click(within(rows[1]).getByRole('button', { name: 'Déconnecter Firefox 133 sur Windows' }));
    const confirm = screen.getByRole('alertdialog', { name: 'Déconnecter cet appareil ?' });
    expect(confirm).toHaveTextContent('« Firefox 133 sur Windows » devra se reconnecter.');
    await user.click(within(confirm).getByRole('button', { name: 'Déconnecter' }));
    expect(await within(section).findByTestId('others-signed-out')).toHaveTextContent("L'appareil a été déconnecté.");
    expect(calls(fetchMock)).toContain('DELETE /account/sessions/s-other');
    await waitFor(() => expect(within(section).getAllByTestId('session-row')).toHaveLength(2));
  });

  it('signs out of the other sessions after confirmation', async () => {
    authClient.signOut.mockResolvedValue({ error: null });
    mockApi(({ path }) =>
      path === '/account/sessions'
        ? { body: { items: [sessionRow('a', { current: true }), sessionRow('b'), sessionRow('c')] } }
        : undefined,
    );
    const { user } = renderApp('/account');
    await user.click(await screen.findByRole('button', { name: 'Se déconnecter des autres sessions' }));
    const confirm = screen.getByRole('alertdialog', { name: 'Se déconnecter des autres sessions ?' });
    await user.click(within(confirm).getByRole('button', { name: 'Déconnecter les autres sessions' }));
    expect(authClient.signOut).toHaveBeenCalledWith({ scope: 'others' });
    expect(await screen.findByTestId('others-signed-out')).toHaveTextContent('Vos autres sessions ont été fermées.');
    expect(screen.getByRole('heading', { level: 1, name: 'Mon compte' })).toBeInTheDocument();
  });

  it('speaks English', async () => {
    await i18n.changeLanguage('en');
    renderApp('/account');
    expect(await screen.findByRole('heading', { level: 1, name: 'My account' })).toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'Sign out of other sessions' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Add an authenticator app' })).toBeInTheDocument();
  });
});
