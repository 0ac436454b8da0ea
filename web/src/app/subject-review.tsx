//! The reviews panel (features/reviews) with what it needs from the other features: the
//! signed-in user and the current workspace's members (mentions). Composed here because
//! features do not import each other.
import { useQuery } from '@tanstack/react-query';

import { useAuth } from '@/features/auth/auth-context';
import type { ReviewSubject } from '@/features/reviews/api/reviews';
import { ReviewPanel } from '@/features/reviews/components/review-panel';
import { membersQueryOptions } from '@/features/workspaces/api/workspaces';
import { useWorkspace } from '@/lib/workspace';

/** "Comments and approval" of a heatmap or a simulation, in the current workspace. */
export function SubjectReview({ subject }: { subject: ReviewSubject }) {
  const { user } = useAuth();
  const { current, ready } = useWorkspace();
  const members = useQuery({ ...membersQueryOptions(current.id), enabled: ready });
  return <ReviewPanel subject={subject} userId={user?.id ?? ''} members={members.data?.items} />;
}
