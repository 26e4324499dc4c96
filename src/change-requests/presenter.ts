import type { SecretBox } from '../lib/crypto.js';
import type { ChangeRequestJson } from './schema.js';
import type { ApprovalRow, ChangeRequestRow, CommentRow } from './queries.js';
import type { ProposedChange } from './merge.js';

/** Binds the encrypted preview token to its request: copied into another row it fails to decrypt. */
export function previewTokenContext(changeRequestId: string): string {
  return `change_request:${changeRequestId}:preview_token`;
}

/** A change request with the approvals that count and its comments: what the service answers and the routes present. */
export interface ChangeRequestDetails {
  row: ChangeRequestRow;
  approvals: readonly ApprovalRow[];
  comments: readonly CommentRow[];
}

/** A change request as members see it; the preview token only while the request can still go live. */
export function changeRequestToJson({ row, approvals, comments }: ChangeRequestDetails, secrets: SecretBox): ChangeRequestJson {
  const live = row.status === 'open' || row.status === 'scheduled';
  return {
    id: row.id,
    site_id: row.site_id,
    workspace_id: row.workspace_id,
    title: row.title,
    description: row.description,
    status: row.status,
    author: row.author_id === null ? null : { id: row.author_id, email: row.author_email, name: row.author_name },
    base_version: row.base_version,
    changes: JSON.parse(row.changes) as ProposedChange[],
    approvals: approvals.map((approval) => ({ user: { id: approval.user_id, email: approval.email, name: approval.name }, at: approval.at })),
    comments: comments.map((comment) => ({
      user: comment.user_id === null ? null : { id: comment.user_id, email: comment.user_email, name: comment.user_name },
      at: comment.at,
      body: comment.body,
    })),
    scheduled_at: row.scheduled_at,
    applied_version: row.applied_version,
    failure: row.failure === null ? null : (JSON.parse(row.failure) as ChangeRequestJson['failure']),
    preview_token: live ? secrets.decrypt(row.preview_token, previewTokenContext(row.id)) : null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
