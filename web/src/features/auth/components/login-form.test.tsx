import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { i18n } from '@/lib/i18n';
import { mockApi } from '@/testing/api-mock';
import { authClient, authError, resetAuthMock } from '@/testing/auth-mock';

import { LoginForm, type LoginFormProps } from './login-form';

vi.mock('@/lib/auth', () => import('@/testing/auth-mock'));

const MESSAGES = {
  fr: {
    invalid_credentials: 'Email ou mot de passe incorrect',
    user_already_exists: 'Un compte existe déjà avec cet email',
    other: 'Une erreur est survenue. Veuillez réessayer.',
  },
  en: {
    invalid_credentials: 'Invalid email or password',
    user_already_exists: 'An account already exists with this email',
    other: 'An error occurred. Please try again.',
  },
} as const;

const LABELS = {
  fr: { email: 'Email', password: 'Mot de passe', login: 'Se connecter', register: 'Créer mon compte', toRegister: 'Créer un compte' },
  en: { email: 'Email', password: 'Password', login: 'Sign in', register: 'Create my account', toRegister: 'Create an account' },
} as const;

function setup(props: LoginFormProps = {}) {
  const user = userEvent.setup();
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={queryClient}>
      <LoginForm {...props} />
    </QueryClientProvider>,
  );
  return { user };
}

/** `GET /auth/v1/settings` answers with these providers turned on (and the given flags). */
function serveSettings(providers: string[], flags: Record<string, boolean> = {}) {
  const external: Record<string, boolean> = { email: true, phone: false, anonymous_users: false, github: false };
  for (const name of providers) external[name] = true;
  mockApi(({ path }) =>
    path === '/auth/v1/settings'
      ? { body: { external, disable_signup: false, mailer_autoconfirm: true, ...flags } }
      : undefined,
  );
}

async function fill(user: ReturnType<typeof userEvent.setup>, email: string, password: string, lng: 'fr' | 'en' = 'fr') {
  if (email) await user.type(screen.getByLabelText(LABELS[lng].email), email);
  if (password) await user.type(screen.getByLabelText(LABELS[lng].password), password);
}

beforeEach(() => {
  resetAuthMock();
});

describe('LoginForm validation', () => {
  it('has a required email field of type email and a required password of at least 6 characters', () => {
    setup();
    const email = screen.getByLabelText('Email');
    const password = screen.getByLabelText('Mot de passe');
    expect(email).toHaveAttribute('type', 'email');
    expect(email).toBeRequired();
    expect(password).toHaveAttribute('type', 'password');
    expect(password).toBeRequired();
    expect(password).toHaveAttribute('minLength', '6');
  });

  it('shows the "6 characters minimum" hint only when creating an account', async () => {
    const { user } = setup();
    expect(screen.queryByText('6 caractères minimum')).not.toBeInTheDocument();
    expect(screen.getByLabelText('Mot de passe')).not.toHaveAttribute('aria-describedby');
    await user.click(screen.getByTestId('auth-mode-toggle'));
    const hint = screen.getByText('6 caractères minimum');
    expect(screen.getByLabelText('Mot de passe')).toHaveAccessibleDescription('6 caractères minimum');
    expect(hint).toBeVisible();
  });

  it('does not submit with an empty form', async () => {
    const { user } = setup();
    await user.click(screen.getByRole('button', { name: 'Se connecter' }));
    expect(authClient.signInWithPassword).not.toHaveBeenCalled();
    expect(screen.getByLabelText('Email')).toBeInvalid();
  });

  it('does not submit without a password', async () => {
    const { user } = setup();
    await fill(user, 'ada@example.com', '');
    await user.click(screen.getByRole('button', { name: 'Se connecter' }));
    expect(authClient.signInWithPassword).not.toHaveBeenCalled();
  });

  it('does not submit a password shorter than 6 characters, with a translated message', async () => {
    const { user } = setup();
    await fill(user, 'ada@example.com', '12345');
    await user.click(screen.getByRole('button', { name: 'Se connecter' }));
    expect(authClient.signInWithPassword).not.toHaveBeenCalled();
    const password = screen.getByLabelText<HTMLInputElement>('Mot de passe');
    expect(password).toBeInvalid();
    expect(password.validationMessage).toBe('Le mot de passe doit contenir au moins 6 caractères.');
  });

  it('submits a valid form to signInWithPassword', async () => {
    const { user } = setup();
    await fill(user, 'ada@example.com', '123456');
    await user.click(screen.getByRole('button', { name: 'Se connecter' }));
    expect(authClient.signInWithPassword).toHaveBeenCalledWith({ email: 'ada@example.com', password: '123456' });
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('submits to signUp in register mode', async () => {
    const { user } = setup();
    await user.click(screen.getByRole('button', { name: 'Créer un compte' }));
    expect(screen.getByRole('heading', { level: 1, name: 'Créer un compte' })).toBeInTheDocument();
    await fill(user, 'ada@example.com', 'secret1');
    await user.click(screen.getByRole('button', { name: 'Créer mon compte' }));
    expect(authClient.signUp).toHaveBeenCalledWith(expect.objectContaining({ email: 'ada@example.com', password: 'secret1' }));
    expect(authClient.signInWithPassword).not.toHaveBeenCalled();
  });

  it('tells the user to confirm their e-mail when sign-up returns no session', async () => {
    authClient.signUp.mockResolvedValue({ data: { user: { id: 'u' }, session: null }, error: null });
    const { user } = setup();
    await user.click(screen.getByRole('button', { name: 'Créer un compte' }));
    await fill(user, 'ada@example.com', 'secret1');
    await user.click(screen.getByRole('button', { name: 'Créer mon compte' }));
    expect(await screen.findByRole('status')).toHaveTextContent('Vérifiez votre boîte mail');
  });
});

describe.each(['fr', 'en'] as const)('LoginForm errors in %s', (lng) => {
  beforeEach(async () => {
    await i18n.changeLanguage(lng);
  });

  it('maps invalid_credentials on sign-in', async () => {
    authClient.signInWithPassword.mockResolvedValue({
      data: { user: null, session: null },
      error: authError('invalid_credentials', 'Invalid login credentials'),
    });
    const { user } = setup();
    await fill(user, 'ada@example.com', 'wrong-password', lng);
    await user.click(screen.getByRole('button', { name: LABELS[lng].login }));
    expect(await screen.findByRole('alert')).toHaveTextContent(MESSAGES[lng].invalid_credentials);
  });

  it('maps user_already_exists on sign-up', async () => {
    authClient.signUp.mockResolvedValue({
      data: { user: null, session: null },
      error: authError('user_already_exists', 'User already registered', 422),
    });
    const { user } = setup();
    await user.click(screen.getByRole('button', { name: LABELS[lng].toRegister }));
    await fill(user, 'ada@example.com', 'secret1', lng);
    await user.click(screen.getByRole('button', { name: LABELS[lng].register }));
    expect(await screen.findByRole('alert')).toHaveTextContent(MESSAGES[lng].user_already_exists);
  });

  it.each([
    ['another code', () => authError('unexpected_failure', 'Boom', 500)],
    ['no code', () => authError(undefined, 'Failed to fetch', 0)],
  ])('shows the generic message for %s', async (_name, makeError) => {
    authClient.signInWithPassword.mockResolvedValue({ data: { user: null, session: null }, error: makeError() });
    const { user } = setup();
    await fill(user, 'ada@example.com', 'secret1', lng);
    await user.click(screen.getByRole('button', { name: LABELS[lng].login }));
    expect(await screen.findByRole('alert')).toHaveTextContent(MESSAGES[lng].other);
  });

  it('shows the generic message when auth-js throws', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    authClient.signInWithPassword.mockRejectedValue(new TypeError('boom'));
    const { user } = setup();
    await fill(user, 'ada@example.com', 'secret1', lng);
    await user.click(screen.getByRole('button', { name: LABELS[lng].login }));
    expect(await screen.findByRole('alert')).toHaveTextContent(MESSAGES[lng].other);
  });
});

describe('LoginForm mode toggle', () => {
  it('clears the displayed error when switching mode, both ways', async () => {
    authClient.signInWithPassword.mockResolvedValue({
      data: { user: null, session: null },
      error: authError('invalid_credentials'),
    });
    authClient.signUp.mockResolvedValue({ data: { user: null, session: null }, error: authError('user_already_exists') });
    const { user } = setup();

    await fill(user, 'ada@example.com', 'secret1');
    await user.click(screen.getByRole('button', { name: 'Se connecter' }));
    expect(await screen.findByRole('alert')).toBeInTheDocument();

    await user.click(screen.getByTestId('auth-mode-toggle'));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Créer mon compte' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Un compte existe déjà avec cet email');

    await user.click(screen.getByTestId('auth-mode-toggle'));
    await waitFor(() => expect(screen.queryByRole('alert')).not.toBeInTheDocument());
    expect(screen.getByRole('heading', { level: 1, name: 'Connexion' })).toBeInTheDocument();
  });
});

describe('LoginForm: forgot password', () => {
  it('asks for the e-mail, sends the link to /reset-password and opens the code screen, the same for every address', async () => {
    const { user } = setup();
    await user.click(screen.getByRole('button', { name: 'Mot de passe oublié ?' }));
    expect(screen.getByRole('heading', { level: 1, name: 'Mot de passe oublié' })).toBeInTheDocument();
    expect(screen.getByText(/un email avec un lien et un code/)).toBeInTheDocument();
    expect(screen.queryByLabelText('Mot de passe')).not.toBeInTheDocument();
    await user.type(screen.getByLabelText('Email'), ' nobody@example.com ');
    await user.click(screen.getByRole('button', { name: 'Envoyer le lien' }));
    expect(authClient.resetPasswordForEmail).toHaveBeenCalledWith('nobody@example.com', {
      redirectTo: `${window.location.origin}/reset-password`,
    });
    expect(await screen.findByRole('heading', { level: 1, name: 'Saisir le code reçu' })).toBeInTheDocument();
    expect(screen.getByTestId('recovery-code-intro')).toHaveTextContent('Si un compte existe pour nobody@example.com, nous venons');
    // The code field has focus, and says where the code is in the mail (the mail's own words).
    expect(screen.getByLabelText('Code à 6 chiffres')).toHaveFocus();
    expect(screen.getByLabelText('Code à 6 chiffres')).toHaveAccessibleDescription(/c'est le nombre qui suit « Ou saisissez ce code dans Regard »/);
  });

  it('opens the same code screen when the server answers an error that would reveal something', async () => {
    authClient.resetPasswordForEmail.mockResolvedValue({ data: null, error: authError('user_not_found', 'x', 404) });
    const { user } = setup({ initialMode: 'forgot' });
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.click(screen.getByRole('button', { name: 'Envoyer le lien' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Saisir le code reçu' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it.each([
    ['over_request_rate_limit', 'Trop de tentatives'],
    ['over_email_send_rate_limit', "Un email vient déjà d'être envoyé"],
  ])('says to wait when rate limited (%s), and goes back to the login form', async (code, message) => {
    authClient.resetPasswordForEmail.mockResolvedValue({ data: null, error: authError(code, 'x', 429) });
    const { user } = setup({ initialMode: 'forgot' });
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.click(screen.getByRole('button', { name: 'Envoyer le lien' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(message);
    expect(screen.getByRole('heading', { level: 1, name: 'Mot de passe oublié' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Retour à la connexion' }));
    expect(screen.getByRole('heading', { level: 1, name: 'Connexion' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});

describe('LoginForm: the recovery code', () => {
  async function openCodeScreen(user: ReturnType<typeof userEvent.setup>, email = 'ada@example.com') {
    await user.type(screen.getByLabelText('Email'), email);
    await user.click(screen.getByRole('button', { name: 'Envoyer le lien' }));
    await screen.findByRole('heading', { level: 1, name: 'Saisir le code reçu' });
  }

  it('verifies the code as a recovery for that address (digits only, six at most)', async () => {
    const { user } = setup({ initialMode: 'forgot' });
    await openCodeScreen(user);
    // On success auth-js announces the recovery session; the app replaces this screen.
    authClient.verifyOtp.mockReturnValue(new Promise(() => {}));
    await user.type(screen.getByLabelText('Code à 6 chiffres'), '12 34-5678');
    expect(screen.getByLabelText('Code à 6 chiffres')).toHaveValue('123456');
    await user.click(screen.getByRole('button', { name: 'Vérifier le code' }));
    expect(authClient.verifyOtp).toHaveBeenCalledWith({ email: 'ada@example.com', token: '123456', type: 'recovery' });
    expect(screen.getByTestId('recovery-code-submit')).toBeDisabled();
  });

  it('says when the code is wrong or expired, empties the field, and lets the user try again', async () => {
    const { user } = setup({ initialMode: 'forgot' });
    await openCodeScreen(user);
    authClient.verifyOtp.mockResolvedValueOnce({ data: { user: null, session: null }, error: authError('otp_expired', 'x', 403) });
    await user.type(screen.getByLabelText('Code à 6 chiffres'), '000000');
    await user.click(screen.getByRole('button', { name: 'Vérifier le code' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent("Ce code ne fonctionne pas : il est erroné, a expiré (il est valable une heure), a déjà servi, ou un email plus récent l'a remplacé.");
    expect(alert).not.toHaveTextContent('lien');
    expect(screen.getByLabelText('Code à 6 chiffres')).toHaveValue('');
    expect(screen.getByLabelText('Code à 6 chiffres')).toHaveFocus();
    expect(screen.getByTestId('recovery-code-submit')).toBeEnabled();
  });

  it('asks for the six digits in the app\'s language, not the browser\'s', async () => {
    const { user } = setup({ initialMode: 'forgot' });
    await openCodeScreen(user);
    const field = screen.getByLabelText<HTMLInputElement>('Code à 6 chiffres');
    await user.type(field, '123');
    expect(field.checkValidity()).toBe(false);
    expect(field.validationMessage).toBe('Saisissez les 6 chiffres du code reçu par email.');
    await user.type(field, '456');
    expect(field.checkValidity()).toBe(true);
  });

  it('goes back to the address (kept, to correct it) or to the login form', async () => {
    const { user } = setup({ initialMode: 'forgot' });
    await openCodeScreen(user);
    await user.click(screen.getByRole('button', { name: "Modifier l'adresse" }));
    expect(screen.getByRole('heading', { level: 1, name: 'Mot de passe oublié' })).toBeInTheDocument();
    expect(screen.getByLabelText('Email')).toHaveValue('ada@example.com');
    await user.click(screen.getByRole('button', { name: 'Envoyer le lien' }));
    await screen.findByRole('heading', { level: 1, name: 'Saisir le code reçu' });
    await user.click(screen.getByRole('button', { name: 'Retour à la connexion' }));
    expect(screen.getByRole('heading', { level: 1, name: 'Connexion' })).toBeInTheDocument();
  });

  it('speaks English too', async () => {
    await i18n.changeLanguage('en');
    const { user } = setup({ initialMode: 'forgot' });
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.click(screen.getByRole('button', { name: 'Send the link' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Enter the code from the email' })).toBeInTheDocument();
    expect(screen.getByLabelText('6-digit code')).toHaveAccessibleDescription(/after “Or enter this code in Regard”/);
    expect(screen.getByTestId('recovery-code-resend')).toHaveTextContent('Send the email again in 60 s');
    authClient.verifyOtp.mockResolvedValueOnce({ data: { user: null, session: null }, error: authError('otp_expired', 'x', 403) });
    await user.type(screen.getByLabelText('6-digit code'), '000000');
    await user.click(screen.getByRole('button', { name: 'Verify the code' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('This code does not work');
  });
});

describe('LoginForm: sending the recovery mail again', () => {
  beforeEach(() => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits as long as the server would (one mail a minute), then sends it again to the same address', async () => {
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={queryClient}>
        <LoginForm initialMode="forgot" />
      </QueryClientProvider>,
    );
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.click(screen.getByRole('button', { name: 'Envoyer le lien' }));
    const resend = await screen.findByTestId('recovery-code-resend');
    expect(resend).toBeDisabled();
    expect(resend).toHaveTextContent("Renvoyer l'email dans 60 s");
    for (let i = 0; i < 59; i += 1) await act(() => vi.advanceTimersByTimeAsync(1000));
    expect(resend).toHaveTextContent("Renvoyer l'email dans 1 s");
    await act(() => vi.advanceTimersByTimeAsync(1000));
    expect(resend).toBeEnabled();
    expect(resend).toHaveTextContent("Renvoyer l'email");

    await user.type(screen.getByLabelText('Code à 6 chiffres'), '12');
    await user.click(resend);
    expect(authClient.resetPasswordForEmail).toHaveBeenCalledTimes(2);
    expect(authClient.resetPasswordForEmail).toHaveBeenLastCalledWith('ada@example.com', {
      redirectTo: `${window.location.origin}/reset-password`,
    });
    expect(await screen.findByRole('status')).toHaveTextContent('un nouvel email vient de lui être envoyé : son code remplace le précédent.');
    expect(screen.getByLabelText('Code à 6 chiffres')).toHaveValue('');
    expect(resend).toBeDisabled();
    expect(resend).toHaveTextContent("Renvoyer l'email dans 60 s");
  });

  it('says to wait when the server refuses to send again', async () => {
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={queryClient}>
        <LoginForm initialMode="forgot" />
      </QueryClientProvider>,
    );
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.click(screen.getByRole('button', { name: 'Envoyer le lien' }));
    await screen.findByTestId('recovery-code-resend');
    for (let i = 0; i < 60; i += 1) await act(() => vi.advanceTimersByTimeAsync(1000));
    authClient.resetPasswordForEmail.mockResolvedValueOnce({ data: null, error: authError('over_email_send_rate_limit', 'x', 429) });
    await user.click(screen.getByTestId('recovery-code-resend'));
    expect(await screen.findByRole('alert')).toHaveTextContent("Un email vient déjà d'être envoyé");
    expect(screen.getByRole('heading', { level: 1, name: 'Saisir le code reçu' })).toBeInTheDocument();
  });
});

describe('LoginForm: sign-in link', () => {
  it('asks for the e-mail only, never creates an account, and shows the same notice for unknown addresses', async () => {
    const { user } = setup();
    await user.click(screen.getByRole('button', { name: 'Recevoir un lien de connexion par email' }));
    expect(screen.getByRole('heading', { level: 1, name: 'Connexion par lien' })).toBeInTheDocument();
    expect(screen.queryByLabelText('Mot de passe')).not.toBeInTheDocument();
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.click(screen.getByRole('button', { name: 'Envoyer le lien' }));
    expect(authClient.signInWithOtp).toHaveBeenCalledWith({
      email: 'ada@example.com',
      options: { shouldCreateUser: false, emailRedirectTo: `${window.location.origin}/` },
    });
    expect(await screen.findByRole('status')).toHaveTextContent('un lien de connexion');

    // The server's otp_disabled (no such account) reads the same.
    authClient.signInWithOtp.mockResolvedValue({ data: { user: null, session: null }, error: authError('otp_disabled', 'x', 422) });
    await user.click(screen.getByRole('button', { name: 'Envoyer le lien' }));
    expect(await screen.findByRole('status')).toHaveTextContent('Si un compte existe pour cette adresse');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('says to wait when mails are rate limited, and goes back to the login form', async () => {
    authClient.signInWithOtp.mockResolvedValue({
      data: { user: null, session: null },
      error: authError('over_email_send_rate_limit', 'x', 429),
    });
    const { user } = setup({ initialMode: 'magic' });
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.click(screen.getByRole('button', { name: 'Envoyer le lien' }));
    expect(await screen.findByRole('alert')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Retour à la connexion' }));
    expect(screen.getByRole('heading', { level: 1, name: 'Connexion' })).toBeInTheDocument();
  });
});

describe('LoginForm: providers', () => {
  it('shows one button per enabled provider and starts the PKCE redirect to this page', async () => {
    serveSettings(['google', 'keycloak', 'azure', 'linkedin_oidc', 'acme']);
    const { user } = setup();
    const names = ['Continuer avec Google', 'Continuer avec Keycloak', 'Continuer avec Microsoft', 'Continuer avec LinkedIn', 'Continuer avec Acme'];
    for (const name of names) expect(await screen.findByRole('button', { name })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /GitHub|Email|Phone/ })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Continuer avec Google' }));
    expect(authClient.signInWithOAuth).toHaveBeenCalledWith({
      provider: 'google',
      options: { redirectTo: `${window.location.origin}${window.location.pathname}` },
    });
  });

  it('labels them in English too, and shows none when settings fail', async () => {
    await i18n.changeLanguage('en');
    serveSettings(['github']);
    setup();
    expect(await screen.findByRole('button', { name: 'Continue with GitHub' })).toBeInTheDocument();
  });

  it('offers no provider when the settings cannot be read', async () => {
    setup();
    await screen.findByRole('heading', { level: 1, name: 'Connexion' });
    expect(screen.queryByTestId('providers')).not.toBeInTheDocument();
  });

  it('hides registration when sign-ups are disabled', async () => {
    serveSettings([], { disable_signup: true });
    setup();
    await waitFor(() => expect(screen.queryByTestId('auth-mode-toggle')).not.toBeInTheDocument());
  });
});

describe('LoginForm: errors brought back in the URL', () => {
  it('shows the redirect error until the user moves on', async () => {
    const dismiss = vi.fn();
    const { user } = setup({ redirectError: 'auth.errors.providerDenied', onDismissRedirectError: dismiss });
    expect(screen.getByRole('alert')).toHaveTextContent('La connexion avec le fournisseur a été refusée ou annulée.');
    await user.click(screen.getByTestId('auth-mode-toggle'));
    expect(dismiss).toHaveBeenCalled();
  });
});
