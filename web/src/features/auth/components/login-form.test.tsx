import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';

import { i18n } from '@/lib/i18n';
import { authClient, authError, resetAuthMock } from '@/testing/auth-mock';

import { LoginForm } from './login-form';

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

function setup() {
  const user = userEvent.setup();
  render(<LoginForm />);
  return { user };
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
    expect(authClient.signUp).toHaveBeenCalledWith({ email: 'ada@example.com', password: 'secret1' });
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
    ['another code', () => authError('over_request_rate_limit', 'Too many requests', 429)],
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
