//! `GET /auth/v1/settings`: what the auth server offers (public, no token). auth-js has no call
//! for it, so it is read with `fetch` and cached by react-query.
import { queryOptions } from '@tanstack/react-query';

export type AuthSettings = {
  /** Sign-in methods: `email`, `phone`, `anonymous_users` and one entry per provider. */
  external: Record<string, boolean>;
  disable_signup: boolean;
  /** False: a new account must confirm its address before signing in. */
  mailer_autoconfirm: boolean;
};

/** Keys of `external` that are not third-party providers. */
const NOT_PROVIDERS = new Set(['email', 'phone', 'anonymous_users']);

/** The providers to offer, in the server's order. */
export function enabledProviders(settings: AuthSettings | undefined): string[] {
  if (!settings) return [];
  return Object.entries(settings.external)
    .filter(([name, enabled]) => enabled === true && !NOT_PROVIDERS.has(name))
    .map(([name]) => name);
}

const PROVIDER_NAMES: Record<string, string> = {
  google: 'Google',
  azure: 'Microsoft',
  github: 'GitHub',
  gitlab: 'GitLab',
  keycloak: 'Keycloak',
  apple: 'Apple',
  facebook: 'Facebook',
  linkedin_oidc: 'LinkedIn',
};

/** A provider's brand name (the same in every language): known names, else the key capitalised. */
export function providerLabel(provider: string): string {
  return PROVIDER_NAMES[provider] ?? provider.charAt(0).toUpperCase() + provider.slice(1);
}

function parseSettings(body: unknown): AuthSettings {
  const record = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const external =
    typeof record.external === 'object' && record.external !== null ? (record.external as Record<string, unknown>) : {};
  return {
    external: Object.fromEntries(Object.entries(external).map(([name, value]) => [name, value === true])),
    disable_signup: record.disable_signup === true,
    mailer_autoconfirm: record.mailer_autoconfirm !== false,
  };
}

export const authSettingsQuery = () =>
  queryOptions({
    queryKey: ['auth', 'settings'],
    queryFn: async ({ signal }) => {
      const response = await fetch('/auth/v1/settings', { headers: { Accept: 'application/json' }, signal });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      return parseSettings(await response.json());
    },
    staleTime: 5 * 60_000,
    retry: 1,
  });
