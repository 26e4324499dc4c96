/** The workspace API's plain limits. No imports: the dashboard's forms read them from here. */

/** Characters of a workspace's name, after trimming. */
export const WORKSPACE_NAME_MAX_LENGTH = 100;

/** Approvals a change request may be required to have, while review is required. */
export const REVIEW_APPROVALS_MIN = 1;
export const REVIEW_APPROVALS_MAX = 5;
