import type { Invitation } from '../api/workspaces';

/** Whether an invitation can no longer be accepted at `now` (milliseconds since the epoch). */
export function isExpired(invitation: Pick<Invitation, 'expires_at'>, now: number): boolean {
  const expires = Date.parse(invitation.expires_at);
  return Number.isFinite(expires) && expires <= now;
}
