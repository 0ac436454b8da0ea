//! Reviews of a heatmap or a simulation (`…/comments`, `…/approval`): query factories and
//! mutations. Everything lives under `['reviews', kind, id]`; a mutation refreshes its subject's
//! comments and approval. Every member may comment and set the approval, viewers included.
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';

import { answer, api, type Schemas } from '@/lib/api';

export type Comment = Schemas['Comment'];
export type Approval = Schemas['Approval'];
export type ApprovalStatus = Schemas['ApprovalStatus'];
export type Actor = Schemas['Actor'];

export const APPROVAL_STATUSES = ['pending', 'approved', 'changes_requested'] as const satisfies readonly ApprovalStatus[];

/** What is reviewed: a heatmap (its results page) or a simulation (its render). */
export type ReviewSubject = { kind: 'heatmap' | 'simulation'; id: string };

/** The most characters a comment may have (the server's limit). */
export const MAX_COMMENT_LENGTH = 5000;

export const reviewKeys = {
  all: ['reviews'] as const,
  subject: ({ kind, id }: ReviewSubject) => ['reviews', kind, id] as const,
  comments: (subject: ReviewSubject) => [...reviewKeys.subject(subject), 'comments'] as const,
  approval: (subject: ReviewSubject) => [...reviewKeys.subject(subject), 'approval'] as const,
};

/** The subject's comments, oldest first. */
export function commentsQueryOptions(subject: ReviewSubject) {
  const path = { params: { path: { id: subject.id } } };
  return queryOptions({
    queryKey: reviewKeys.comments(subject),
    queryFn: ({ signal }) =>
      answer(subject.kind === 'heatmap' ? api.GET('/heatmaps/{id}/comments', { ...path, signal }) : api.GET('/simulations/{id}/comments', { ...path, signal })),
  });
}

/** Where the subject stands with its reviewers (`pending` until someone sets it). */
export function approvalQueryOptions(subject: ReviewSubject) {
  const path = { params: { path: { id: subject.id } } };
  return queryOptions({
    queryKey: reviewKeys.approval(subject),
    queryFn: ({ signal }) =>
      answer(subject.kind === 'heatmap' ? api.GET('/heatmaps/{id}/approval', { ...path, signal }) : api.GET('/simulations/{id}/approval', { ...path, signal })),
  });
}

/** A mutation of the subject's review that refreshes its comments and approval once done. */
function useReviewMutation<TVariables, TData>(subject: ReviewSubject, mutationFn: (variables: TVariables) => Promise<TData>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: reviewKeys.subject(subject) }),
  });
}

/** Posts a comment (`@address` mentions a member, who gets a mail). */
export function useAddComment(subject: ReviewSubject) {
  return useReviewMutation(subject, (body: string) => {
    const request = { params: { path: { id: subject.id } }, body: { body } };
    return answer(subject.kind === 'heatmap' ? api.POST('/heatmaps/{id}/comments', request) : api.POST('/simulations/{id}/comments', request));
  });
}

/** Deletes a comment (its author, or an owner). */
export function useDeleteComment(subject: ReviewSubject) {
  return useReviewMutation(subject, (commentId: string) => {
    const request = { params: { path: { id: subject.id, comment_id: commentId } } };
    return answer(
      subject.kind === 'heatmap'
        ? api.DELETE('/heatmaps/{id}/comments/{comment_id}', request)
        : api.DELETE('/simulations/{id}/comments/{comment_id}', request),
    );
  });
}

/** Sets the approval status; the answer says who set it and when. */
export function useSetApproval(subject: ReviewSubject) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (status: ApprovalStatus) => {
      const request = { params: { path: { id: subject.id } }, body: { status } };
      return answer(subject.kind === 'heatmap' ? api.PUT('/heatmaps/{id}/approval', request) : api.PUT('/simulations/{id}/approval', request));
    },
    onSuccess: (approval) => queryClient.setQueryData(reviewKeys.approval(subject), approval),
  });
}
