/** The change requests' vocabulary and limits. No imports: the dashboard reads them from here. */

/**
 * open: waiting for review; scheduled: approved and due to be applied at `scheduled_at`; applied:
 * live as `applied_version`; declined (by a reviewer), closed (withdrawn), failed (a scheduled
 * apply met a conflict, a trashed site, or a check of an apply-now it no longer passes). Only open
 * and scheduled requests change.
 */
export const CHANGE_REQUEST_STATUSES = ['open', 'scheduled', 'applied', 'declined', 'closed', 'failed'] as const;
export type ChangeRequestStatus = (typeof CHANGE_REQUEST_STATUSES)[number];

/** The statuses of a request still waiting to go live: what the review queue shows by default. */
export const PENDING_CHANGE_REQUEST_STATUSES: readonly ChangeRequestStatus[] = ['open', 'scheduled'];

export const CHANGE_REQUEST_TITLE_MAX_LENGTH = 200;
export const CHANGE_REQUEST_DESCRIPTION_MAX_LENGTH = 10_000;
export const CHANGE_REQUEST_COMMENT_MAX_LENGTH = 10_000;
/** The most a list answers, newest first. */
export const CHANGE_REQUEST_LIST_LIMIT = 100;
/** How far ahead a change may be scheduled. */
export const CHANGE_REQUEST_SCHEDULE_MAX_DAYS = 366;

/** How a reviewer settles a conflicting path: keep the proposal's value, or take the site's current one. */
export const CONFLICT_RESOLUTIONS = ['proposed', 'current'] as const;
export type ConflictResolution = (typeof CONFLICT_RESOLUTIONS)[number];
